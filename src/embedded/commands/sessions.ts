import { Binary, type Document, UUID } from "bson";
import { isPlainObject } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { bsonTypeOf } from "../query/bson-types.ts";
import { missingField, wrongType } from "../field-errors.ts";
import {
  NO_AUTH_DIGEST,
  parseSessionId,
  SESSION_TIMEOUT_MINUTES,
  type SessionId,
  sessionKey,
  userDigest,
} from "../sessions.ts";
import type { CommandContext, Handler } from "./context.ts";

// The session commands of MongoDB 7.0 on a standalone server without authentication, and the
// `$listLocalSessions` stage. Killing a session kills its cursors (the engine runs one command
// at a time, so there is never an operation of it to interrupt).

/** The array argument of a session command (`refreshSessions: [...]`), each element an object. */
function objectArray(ctx: CommandContext, name: string): Document[] {
  const value = ctx.body[name];
  const field = `${name}.${name}`;
  if (!Array.isArray(value)) throw wrongType(field, value, "array");
  return value.map((element) => {
    if (!isPlainObject(element)) throw wrongType(field, element, "object");
    return element;
  });
}

/** The sessions a command names, as `{ id: UUID }` documents. */
function namedSessions(ctx: CommandContext, name: string): SessionId[] {
  return objectArray(ctx, name).map((element) => parseSessionId(element, `${name}.${name}`));
}

/** A `{ user, db }` document of `killAllSessions` or `$listLocalSessions`, as its user digest. */
function userOf(element: Document, field: string): Binary {
  for (const part of ["user", "db"] as const) {
    const value = element[part];
    if (value === undefined) {
      throw missingField(`${field}.${part}`);
    }
    if (typeof value !== "string") throw wrongType(`${field}.${part}`, value, "string");
  }
  return userDigest(element.user as string, element.db as string);
}

/** `startSession`: a new session, with a UUID the server chose. */
function startSession(ctx: CommandContext): Document {
  const id = new UUID();
  ctx.engine.sessions.touch({ id, uid: NO_AUTH_DIGEST });
  return { id: { id }, timeoutMinutes: SESSION_TIMEOUT_MINUTES, ok: 1 };
}

/** `refreshSessions`: marks sessions used, so they do not expire. */
function refreshSessions(ctx: CommandContext): Document {
  for (const session of namedSessions(ctx, "refreshSessions")) ctx.engine.sessions.touch(session);
  return { ok: 1 };
}

/** `endSessions`: the sessions end, and their cursors are freed. */
function endSessions(ctx: CommandContext): Document {
  const keys = new Set(namedSessions(ctx, "endSessions").map(sessionKey));
  ctx.engine.sessions.end(keys);
  ctx.engine.cursors.killSessions(keys);
  return { ok: 1 };
}

/** `killSessions`: frees the named sessions' cursors (an empty list: every session's); the sessions stay. */
function killSessions(ctx: CommandContext): Document {
  const named = namedSessions(ctx, "killSessions");
  ctx.engine.cursors.killSessions(named.length === 0 ? "all" : new Set(named.map(sessionKey)));
  return { ok: 1 };
}

/** The keys of the cached sessions whose user digest is one of `uids`. */
function keysOfUsers(ctx: CommandContext, uids: readonly Binary[]): Set<string> {
  return new Set(ctx.engine.sessions.list(uids).map(sessionKey));
}

/** `killAllSessions`: frees the cursors of the listed users' sessions (an empty list: everyone's). */
function killAllSessions(ctx: CommandContext): Document {
  const users = objectArray(ctx, "killAllSessions").map((user) => userOf(user, "killAllSessions.killAllSessions"));
  ctx.engine.cursors.killSessions(users.length === 0 ? "all" : keysOfUsers(ctx, users));
  return { ok: 1 };
}

const PATTERN_FIELDS = ["lsid", "uid", "users", "roles"];

/** The keys one `killAllSessionsByPattern` pattern matches: by session, by user digest, or by user name. */
function patternKeys(ctx: CommandContext, pattern: Document): Set<string> | "all" {
  const field = "killAllSessionsByPattern.killAllSessionsByPattern";
  for (const name of Object.keys(pattern)) {
    if (!PATTERN_FIELDS.includes(name)) {
      throw new CommandError("Location40415", `BSON field '${field}.${name}' is an unknown field.`);
    }
  }
  if (pattern.lsid !== undefined) return new Set([sessionKey(parseSessionId(pattern.lsid, `${field}.lsid`))]);
  if (pattern.uid !== undefined) {
    if (!(pattern.uid instanceof Binary)) throw wrongType(`${field}.uid`, pattern.uid, "binData");
    return keysOfUsers(ctx, [pattern.uid]);
  }
  if (pattern.users !== undefined) {
    if (!Array.isArray(pattern.users)) throw wrongType(`${field}.users`, pattern.users, "array");
    return keysOfUsers(ctx, pattern.users.map((user) => userOf(user, `${field}.users`)));
  }
  // Roles belong to authenticated users, which an engine without authentication has none of.
  return pattern.roles !== undefined ? new Set() : "all";
}

/** `killAllSessionsByPattern`: frees the cursors of every session a pattern matches (no patterns: all). */
function killAllSessionsByPattern(ctx: CommandContext): Document {
  const patterns = objectArray(ctx, "killAllSessionsByPattern").map((pattern) => patternKeys(ctx, pattern));
  if (patterns.length === 0 || patterns.includes("all")) ctx.engine.cursors.killSessions("all");
  else ctx.engine.cursors.killSessions(new Set(patterns.flatMap((keys) => [...(keys as Set<string>)])));
  return { ok: 1 };
}

/** Session commands. */
export const sessionCommands: Record<string, Handler> = {
  startSession,
  refreshSessions,
  endSessions,
  killSessions,
  killAllSessions,
  killAllSessionsByPattern,
};

/** Which sessions `$listLocalSessions` lists: every user's, or those of some user digests. */
export type ListSessionsSpec = { allUsers: true } | { allUsers: false; uids: Binary[] };

const LIST_SESSIONS_FIELDS = ["allUsers", "users", "$_internalPredicate"];

/** Parses a `$listLocalSessions` stage's argument as MongoDB 7.0 does. */
export function parseListLocalSessions(argument: unknown): ListSessionsSpec {
  const stage = "$listLocalSessions";
  if (!isPlainObject(argument)) {
    throw new CommandError(
      "TypeMismatch",
      `${stage} options must be specified in an object, but found: ${bsonTypeOf(argument)}`,
    );
  }
  for (const field of Object.keys(argument)) {
    if (!LIST_SESSIONS_FIELDS.includes(field)) {
      throw new CommandError("Location40415", `BSON field '${stage}.${field}' is an unknown field.`);
    }
  }
  const { allUsers, users } = argument;
  if (allUsers !== undefined && typeof allUsers !== "boolean") throw wrongType(`${stage}.allUsers`, allUsers, "bool");
  if (users !== undefined && !Array.isArray(users)) throw wrongType(`${stage}.users`, users, "array");
  const uids = (users ?? []).map((user: unknown) => {
    if (!isPlainObject(user)) throw wrongType(`${stage}.users`, user, "object");
    return userOf(user, `${stage}.users`);
  });
  if (allUsers === true && uids.length > 0) {
    throw new CommandError(
      "UnsupportedFormat",
      `${stage} may not specify {allUsers:true} and {users:[...]} at the same time`,
    );
  }
  if (allUsers === true) return { allUsers: true };
  // No users named: the sessions of the user running the command (here, the unauthenticated one).
  return { allUsers: false, uids: uids.length > 0 ? uids : [NO_AUTH_DIGEST] };
}

/** The documents of `$listLocalSessions`: each cached session's id and when it was last used. */
export function localSessionDocuments(ctx: CommandContext, spec: ListSessionsSpec): Document[] {
  const records = ctx.engine.sessions.list(spec.allUsers ? undefined : spec.uids);
  return records.map(({ id, uid, lastUse }) => ({ _id: { id, uid }, lastUse: new Date(lastUse) }));
}
