import { optional, string } from "superstruct";
import { defineModel, email } from "../src/mod.ts";

/** A person who writes posts. The password is stored but never returned or queryable. */
export default defineModel({
  name: "User",
  fields: {
    email: email(),
    name: string(),
    surname: string(),
    password: optional(string()),
  },
  hidden: ["password"],
  unique: ["email"], // also serves q={"email":…}
  // Serve the lists clients ask for most: sort=name, sort=-created_at,name, and
  // q={"surname":…} (equality on surname, then sorted by name). Each ends in _id, the tie-breaker every
  // sort gets, so MongoDB can read the sort from the index too. See "Choosing indexes" in the README.
  indexes: [
    { keys: { name: 1, _id: 1 } },
    { keys: { created_at: -1, name: 1, _id: 1 } },
    { keys: { surname: 1, name: 1, _id: 1 } },
  ],
  relations: {
    // Deleting a user deletes their posts too (after the user; Post's hooks do not run for them).
    posts: { type: "hasMany", model: "Post", foreignKey: "user_id", onDelete: "cascade" },
  },
});
