import { optional, string } from "superstruct";
import { defineModel, email, principal } from "../src/mod.ts";

/** Only oneself: a user record whose id is the token's subject. */
const self = { id: principal("subject") };

/**
 * A person who writes posts. The password is stored (hashed, see hooks/User.ts) but never
 * returned or queryable. Anyone may sign up and read everyone's public profile (name and
 * surname); a signed-in user changes or deletes only themselves; an admin may do everything.
 */
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
  access: {
    admin: { all: true },
    authenticated: {
      read: { fields: ["name", "surname"] },
      insert: true,
      update: { where: self },
      patch: { where: self },
      delete: { where: self },
    },
    anonymous: { read: { fields: ["name", "surname"] }, insert: true },
  },
});
