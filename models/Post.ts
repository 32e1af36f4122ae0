import { optional, string } from "superstruct";
import { defineModel, id } from "../src/mod.ts";
import { ownedByCaller } from "../lib/ownership.ts";

/** A post, owned by the user in `user_id`: written as yourself, changed and deleted by its owner (or an admin). */
export default defineModel({
  name: "Post",
  fields: {
    user_id: id(),
    title: string(),
    body: optional(string()),
  },
  relations: {
    user: { type: "belongsTo", model: "User", foreignKey: "user_id" },
    // Deleting a post deletes its comments too (and so does deleting its user, through User.posts).
    comments: { type: "hasMany", model: "Comment", foreignKey: "post_id", onDelete: "cascade" },
  },
  // A user's posts in id order, the relation's order: with=posts reads its first 100 per user
  // from this index, and GET /users/1/posts (sorted by id) a page. Then newest first
  // (GET /users/1/posts?sort=-created_at), and every post newest first.
  access: ownedByCaller(),
  indexes: [
    { keys: { user_id: 1, _id: 1 } },
    { keys: { user_id: 1, created_at: -1, _id: 1 } },
    { keys: { created_at: -1, _id: 1 } },
  ],
});
