import { array, boolean, date, integer, number, optional, string } from "superstruct";
import { defineModel } from "../../src/model/define.ts";
import { createRegistry } from "../../src/model/registry.ts";
import { DEFAULT_QUERY_LIMITS, type QueryLimits } from "../../src/query/limits.ts";

/** Models for the query-language tests: every field kind, a hidden field, all three relation types. */
export const User = defineModel({
  name: "User",
  fields: {
    name: string(),
    surname: optional(string()),
    age: optional(integer()),
    score: optional(number()),
    active: optional(boolean()),
    born: optional(date()),
    tags: optional(array(string())),
    team_id: optional(integer()),
    password: optional(string()),
  },
  hidden: ["password"],
  relations: {
    posts: { type: "hasMany", model: "Post", foreignKey: "user_id" },
    profile: { type: "hasOne", model: "Profile", foreignKey: "user_id" },
    team: { type: "belongsTo", model: "Team", foreignKey: "team_id" },
  },
});

export const Post = defineModel({
  name: "Post",
  fields: { user_id: integer(), title: string(), body: optional(string()), secret: optional(string()) },
  hidden: ["secret"],
  relations: {
    user: { type: "belongsTo", model: "User", foreignKey: "user_id" },
    comments: { type: "hasMany", model: "Comment", foreignKey: "post_id" },
  },
});

export const Comment = defineModel({
  name: "Comment",
  fields: { post_id: integer(), content: string() },
  relations: {
    post: { type: "belongsTo", model: "Post", foreignKey: "post_id" },
    likes: { type: "hasMany", model: "Like", foreignKey: "comment_id" },
  },
});

export const Like = defineModel({
  name: "Like",
  fields: { comment_id: integer(), stars: integer() },
  relations: { comment: { type: "belongsTo", model: "Comment", foreignKey: "comment_id" } },
  softDelete: true,
});

export const Profile = defineModel({ name: "Profile", fields: { user_id: integer(), bio: string() } });

export const Team = defineModel({
  name: "Team",
  fields: { name: string() },
  relations: { members: { type: "hasMany", model: "User", foreignKey: "team_id" } },
});

export const Trashable = defineModel({ name: "Trashable", fields: { name: string() }, softDelete: true });

export const registry = createRegistry([User, Post, Comment, Like, Profile, Team, Trashable]);

export const limits: QueryLimits = DEFAULT_QUERY_LIMITS;
