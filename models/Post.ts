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
  // A user's posts, newest first (GET /users/1/posts?sort=-created_at, with=posts); the
  // equality on user_id alone is served by the same index's first key.
  indexes: [{ keys: { user_id: 1, created_at: -1, _id: 1 } }, { keys: { created_at: -1, _id: 1 } }],
});
