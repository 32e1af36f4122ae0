import { string } from "superstruct";
import { defineModel, id } from "../src/mod.ts";
import { ownedByCaller } from "../lib/ownership.ts";

/** A comment on a post, by the user in `user_id`: written as yourself, changed and deleted by its writer (or an admin). */
export default defineModel({
  name: "Comment",
  fields: {
    post_id: id(),
    user_id: id(),
    content: string(),
  },
  relations: {
    post: { type: "belongsTo", model: "Post", foreignKey: "post_id" },
    user: { type: "belongsTo", model: "User", foreignKey: "user_id" },
  },
  access: ownedByCaller(),
  // A post's comments in id order, the relation's order (with=comments reads its first 100 per
  // post from it, GET /posts/1/comments a page), and by date (GET /posts/1/comments?sort=created_at).
  indexes: [{ keys: { post_id: 1, _id: 1 } }, { keys: { post_id: 1, created_at: 1, _id: 1 } }],
});
