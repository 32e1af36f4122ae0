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
  unique: ["email"],
  relations: {
    posts: { type: "hasMany", model: "Post", foreignKey: "user_id" },
  },
});
