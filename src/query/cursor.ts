import { EJSON } from "bson";
import { apiError } from "../errors.ts";
import type { CursorSide } from "../plan/keyset.ts";

export type { CursorSide };

/**
 * What a cursor pins: the list it belongs to (its path), the client's `q`, `sort`, `trashed`
 * and page size as they were sent, the side, and the boundary record's sort key (sort values,
 * then id). The key holds only values of sortable fields, which are never hidden.
 */
export interface CursorState {
  list: string;
  q: string | null;
  sort: string | null;
  trashed: string | null;
  perPage: number;
  side: CursorSide;
  key: unknown[];
  /** With `auth`: a digest of the principal it was issued to; another principal cannot use it. */
  who?: string;
}

/** Longest cursor accepted: far above any the server issues (q is at most a few KiB). */
const MAX_CURSOR_LENGTH = 16_384;
const SIGNATURE_BYTES = 16;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** UTF-8 `text` in base64url without padding: node:buffer's native encoder where there is one. */
function textToBase64Url(text: string): string {
  return NodeBuffer ? NodeBuffer.from(text, "utf8").toString("base64url") : toBase64Url(new TextEncoder().encode(text));
}

/** The text {@link textToBase64Url} encoded; throws on bytes that are not UTF-8 (only without node:buffer). */
function textFromBase64Url(text: string): string {
  if (NodeBuffer) return NodeBuffer.from(text, "base64url").toString("utf8");
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (char) => char.charCodeAt(0)));
}

function isState(value: unknown): value is CursorState {
  const s = value as CursorState;
  return typeof value === "object" && value !== null && typeof s.list === "string" && Number.isSafeInteger(s.perPage) &&
    (s.side === "after" || s.side === "before") && Array.isArray(s.key) &&
    [s.q, s.sort, s.trashed].every((v) => v === null || typeof v === "string") &&
    (s.who === undefined || typeof s.who === "string");
}

/**
 * node:crypto where the runtime has it (Node, Deno, Bun): its HMAC is synchronous and about
 * twenty times cheaper than a Web Crypto call, which every list page pays up to three times.
 * Other runtimes (a worker without Node compatibility) use Web Crypto.
 */
const nodeCrypto: typeof import("node:crypto") | undefined = await import("node:crypto").catch(() => undefined);

/**
 * node:buffer where the runtime has it: its base64url codec is native, about ten times cheaper
 * than btoa/atob over a byte-by-byte string, on a path every cursor page takes three times.
 * Only cursors this server signed are ever decoded, so its leniency towards bad input is moot.
 */
const NodeBuffer: typeof import("node:buffer").Buffer | undefined = await import("node:buffer")
  .then((module) => module.Buffer)
  .catch(() => undefined);

/**
 * Seals list positions into opaque cursors and opens them again. A cursor is its state as JSON
 * (sort values in relaxed Extended JSON, so dates stay dates), base64url-encoded, then a dot and
 * an HMAC-SHA-256 of it (node:crypto or Web Crypto, so it runs on any runtime). Without the
 * secret no one can make or change one, so a cursor's filter and key are exactly what this
 * server issued.
 */
export class CursorSealer {
  readonly #secret: Uint8Array;
  #key: Promise<CryptoKey> | undefined;
  /** The secret as a node:crypto key object, made once rather than on every signature. */
  readonly #nodeKey: import("node:crypto").KeyObject | undefined;

  /** `secret`: any bytes; cursors verify only where the same secret is used. */
  constructor(secret: Uint8Array) {
    this.#secret = Uint8Array.from(secret);
    this.#nodeKey = nodeCrypto?.createSecretKey(this.#secret);
  }

  /** A sealer with a fresh random secret: its cursors are valid until the process ends. */
  static random(): CursorSealer {
    return new CursorSealer(crypto.getRandomValues(new Uint8Array(32)));
  }

  /** The opaque cursor for `state`. */
  async seal(state: CursorState): Promise<string> {
    // One pass: the state's other fields are strings, numbers and null, which relaxed Extended
    // JSON writes as JSON does, so this is the JSON of the state with its key in Extended JSON
    // (EJSON.serialize of the key alone would stringify it, parse it, and stringify it again).
    const json = EJSON.stringify(state, { relaxed: true });
    const payload = textToBase64Url(json);
    return `${payload}.${await this.sign(payload)}`;
  }

  /** The state sealed in `cursor`; a 400 saying what is wrong when it is malformed, cut short or altered. */
  async open(cursor: string): Promise<CursorState> {
    const dot = cursor.indexOf(".");
    const payload = cursor.slice(0, dot);
    const signature = cursor.slice(dot + 1);
    if (cursor.length > MAX_CURSOR_LENGTH || dot < 1 || !BASE64URL.test(payload) || !BASE64URL.test(signature)) {
      throw apiError("cursor.malformed");
    }
    if (signature.length !== Math.ceil((SIGNATURE_BYTES * 4) / 3)) throw apiError("cursor.malformed");
    if (signature !== (await this.sign(payload))) throw apiError("cursor.forged");
    return decodeState(payload);
  }

  private async sign(payload: string): Promise<string> {
    if (nodeCrypto && this.#nodeKey) {
      return nodeCrypto.createHmac("sha256", this.#nodeKey).update(payload).digest().toString(
        "base64url",
        0,
        SIGNATURE_BYTES,
      );
    }
    this.#key ??= crypto.subtle.importKey(
      "raw",
      this.#secret as Uint8Array<ArrayBuffer>,
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    const mac = await crypto.subtle.sign("HMAC", await this.#key, new TextEncoder().encode(payload));
    return toBase64Url(new Uint8Array(mac, 0, SIGNATURE_BYTES));
  }
}

// Signed, so only a secret shared with a different version of the server could get here with
// an unexpected shape; it is still checked rather than trusted.
function decodeState(payload: string): CursorState {
  try {
    // Not EJSON.parse of the whole: its reviver on every value costs more than this second pass over the key.
    const raw = JSON.parse(textFromBase64Url(payload));
    const state = { ...raw, key: EJSON.deserialize(raw.key, { relaxed: true }) };
    if (isState(state)) return state;
  } catch {
    // reported below
  }
  throw apiError("cursor.malformed");
}
