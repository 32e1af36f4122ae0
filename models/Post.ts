import { optional, string } from "superstruct";
import { defineModel, id } from "../src/mod.ts";

/** A post, owned by the user in `user_id`; see hooks/Post.ts for the ownership rules. */
export default defineModel({
  name: "Post",
  fields: {
    user_id: id(),
    title: string(),
    body: optional(string()),
  },
  relations: {
    user: { type: "belongsTo", model: "User", foreignKey: "user_id" },
    comments: { type: "hasMany", model: "Comment", foreignKey: "post_id" },
  },
  indexes: [{ keys: { user_id: 1 } }],
});
