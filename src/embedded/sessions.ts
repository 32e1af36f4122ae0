import { createHash } from "node:crypto";
import { clearInterval, setInterval } from "node:timers";
import { Binary, type Document } from "bson";
import { isPlainObject } from "./bson.ts";
import { CommandError } from "./errors.ts";
import { missingField, wrongType } from "./field-errors.ts";

// Logical sessions, as a standalone MongoDB keeps them in its local session cache: every command
// that carries an `lsid` marks its session used, `startSession` opens one, `endSessions` ends
// them, and a session unused for `logicalSessionTimeoutMinutes` expires. MongoDB also copies the
// cache into `config.system.sessions` every five minutes and expires sessions from there; the
// engine keeps them in memory only, for the same timeout.

/** A session's id as MongoDB holds it: the client's UUID and the digest of its user. */
export interface SessionId {
  /** The UUID the client chose (BSON binary, subtype 4). */
  readonly id: Binary;
  /** SHA-256 of `user@db`, or of "" without authentication (always, in the engine). */
  readonly uid: Binary;
}

/** One session in the cache: what `$listLocalSessions` reports. */
export interface SessionRecord extends SessionId {
  /** When a command last used the session, in ms since the epoch. */
  lastUse: number;
}

/** Minutes a session lives unused; reported by `hello` and `startSession`. */
export const SESSION_TIMEOUT_MINUTES = 30;
/** Sessions the cache holds at most, as MongoDB's `maxSessions` default. */
const MAX_SESSIONS = 1_000_000;

/** The user digest of `user@db`; the empty user (no authentication) has the digest of "". */
export function userDigest(user: string, db: string): Binary {
  const name = user === "" && db === "" ? "" : `${user}@${db}`;
  return new Binary(createHash("sha256").update(name).digest(), Binary.SUBTYPE_DEFAULT);
}

/** The digest every session gets on an engine without authentication. */
export const NO_AUTH_DIGEST = userDigest("", "");

/** A map key for a session id: its UUID and user digest, as hexadecimal. */
export function sessionKey(session: SessionId): string {
  return `${hex(session.id)}:${hex(session.uid)}`;
}

/**
 * A session as MongoDB 7.0 prints one in messages, from its {@link sessionKey}: the UUID, the
 * user digest in base64, and the empty transaction number and UUID of a client's session.
 */
export function sessionText(key: string): string {
  const [id, uid] = key.split(":");
  const uuid = `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}`;
  return `${uuid} - ${Binary.createFromHexString(uid).toString("base64")} -  - `;
}

function hex(value: Binary): string {
  return value.toString("hex");
}

/**
 * A session id a client sent (`{ id: UUID, uid?: BinData }`), checked as MongoDB's IDL checks
 * `LogicalSessionFromClient`; `field` names it in errors (`OperationSessionInfo.lsid`).
 */
export function parseSessionId(value: unknown, field: string): SessionId {
  if (!isPlainObject(value)) throw wrongType(field, value, "object");
  const { id, uid } = value;
  if (id === undefined) {
    throw missingField(`${field}.id`);
  }
  if (!(id instanceof Binary)) throw wrongType(`${field}.id`, id, "binData");
  if (id.sub_type !== Binary.SUBTYPE_UUID || id.length() !== 16) {
    throw new CommandError("InvalidUUID", `uuid must be a 16-byte binary field with UUID (4) subtype`);
  }
  if (uid === undefined) return { id, uid: NO_AUTH_DIGEST };
  if (!(uid instanceof Binary)) throw wrongType(`${field}.uid`, uid, "binData");
  if (uid.length() !== 32) {
    throw new CommandError("BadValue", `Unsupported SHA256Block hash length: ${uid.length()}`);
  }
  return { id, uid };
}

/** The session a command runs in (its `lsid`), or undefined outside a session. */
export function commandSession(body: Document): SessionId | undefined {
  return body.lsid === undefined ? undefined : parseSessionId(body.lsid, "OperationSessionInfo.lsid");
}

/** The sessions used recently, by {@link sessionKey}; expiry is swept, with an injectable clock. */
export class SessionCache {
  readonly #sessions = new Map<string, SessionRecord>();
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    readonly now: () => number = Date.now,
    readonly timeoutMs = SESSION_TIMEOUT_MINUTES * 60_000,
    readonly maxSessions = MAX_SESSIONS,
  ) {}

  /** Sessions in the cache. */
  get size(): number {
    return this.#sessions.size;
  }

  /**
   * Marks a session used now, adding it when it is new; returns its key. A full cache refuses a
   * new session, as MongoDB does, rather than grow without bound.
   */
  touch(session: SessionId): string {
    const key = sessionKey(session);
    const known = this.#sessions.get(key);
    if (known !== undefined) {
      known.lastUse = this.now();
      return key;
    }
    if (this.#sessions.size >= this.maxSessions) {
      throw new CommandError(
        "TooManyLogicalSessions",
        "Unable to add session into the cache because the number of active sessions is too high",
      );
    }
    this.#sessions.set(key, { id: session.id, uid: session.uid, lastUse: this.now() });
    return key;
  }

  /** Ends sessions: they leave the cache (their cursors are the caller's to kill). */
  end(keys: Iterable<string>): void {
    for (const key of keys) this.#sessions.delete(key);
  }

  /** The sessions in the cache, or those of the given user digests. */
  list(uids?: readonly Binary[]): SessionRecord[] {
    const records = [...this.#sessions.values()];
    if (uids === undefined) return records;
    const wanted = new Set(uids.map(hex));
    return records.filter((record) => wanted.has(hex(record.uid)));
  }

  /** Removes the sessions unused for longer than the timeout; returns their keys. */
  expire(): string[] {
    const cutoff = this.now() - this.timeoutMs;
    const expired: string[] = [];
    for (const [key, record] of this.#sessions) {
      if (record.lastUse < cutoff) {
        this.#sessions.delete(key);
        expired.push(key);
      }
    }
    return expired;
  }

  /**
   * Expires unused sessions every `intervalMs`, handing their keys to `onExpired` (which kills
   * their cursors); the timer is unref'd, so an idle engine does not keep the process alive.
   */
  startSweeper(onExpired: (keys: ReadonlySet<string>) => void, intervalMs = 60_000): void {
    this.#timer = setInterval(() => {
      const expired = this.expire();
      if (expired.length > 0) onExpired(new Set(expired));
    }, intervalMs);
    this.#timer.unref();
  }

  /** Stops the sweeper and forgets every session. */
  close(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#sessions.clear();
  }
}
