import { apiError } from "../errors.ts";
import type { Message } from "../i18n/message.ts";

/**
 * Caps on what one list request may ask of the database. They bound the work a single
 * request can cause (parse time, query size, fan-out of relation loading), so an anonymous
 * client cannot turn one URL into an expensive scan. Every cap is configurable per app.
 */
export interface QueryLimits {
  /** Longest `q` accepted, in UTF-8 bytes of the decoded parameter. */
  maxQueryLength: number;
  /** Most leaf conditions (field/operator pairs) in one `q`. */
  maxConditions: number;
  /** Deepest nesting of condition groups (arrays) in `q`; the top-level array is depth 1. */
  maxDepth: number;
  /** Longest `$in` / `$notIn` list. */
  maxInList: number;
  /** Deepest relation chain in `with`: `posts{comments{likes}}` has depth 3. */
  maxRelationDepth: number;
  /** Most children attached to one parent for a hasMany relation (first N in id order). */
  maxChildrenPerParent: number;
  /** Most relation nodes in one `with`, counted over all levels. */
  maxRelations: number;
  /**
   * Most conditions on related records (`user.surname.$like`) in one `q`: each is a query of
   * its own on the related collection before the list's, so they are capped apart from
   * `maxConditions` (which counts them too).
   */
  maxRelatedConditions: number;
  /**
   * Most related records one response may carry through `with`, over every level and parent
   * together, each counted as often as it is written out (a `belongsTo` owner shared by ten
   * records of the page counts ten times, with what it carries). Checked level by level while
   * loading, before the next level is read.
   */
  maxRelatedRecords: number;
  /** Largest response body, in bytes (UTF-8), of a list or show; checked while it is built. */
  maxResponseBytes: number;
  /**
   * Time limit of every database command a request sends, in ms (`maxTimeMS`). A model may
   * lower or raise it for its own reads and writes (`queryTimeMs` in its definition).
   */
  queryTimeMs: number;
  /**
   * Ids an `onDelete` cascade or `setNull` reads and writes per command: a cascade holds one
   * batch of ids per level it is in, so its memory follows this, never the number of children.
   */
  cascadeBatchSize: number;
}

/** The limits an app gets unless it overrides them. */
export const DEFAULT_QUERY_LIMITS: QueryLimits = Object.freeze({
  maxQueryLength: 4096,
  maxConditions: 50,
  maxDepth: 5,
  maxInList: 1000,
  maxRelationDepth: 3,
  maxChildrenPerParent: 100,
  maxRelations: 10,
  maxRelatedConditions: 5,
  maxRelatedRecords: 10_000,
  maxResponseBytes: 16 * 1024 * 1024,
  queryTimeMs: 5_000,
  cascadeBatchSize: 1000,
});

/**
 * Fills an app's partial override with the defaults. Throws a TypeError at start-up for a
 * limit that is not a positive integer, because a typo there would otherwise disable a cap.
 * @example resolveLimits({ maxDepth: 3 }).maxDepth // 3
 * @example resolveLimits().maxInList              // 1000
 */
export function resolveLimits(overrides: Partial<QueryLimits> = {}): QueryLimits {
  const limits = { ...DEFAULT_QUERY_LIMITS };
  for (const key of Object.keys(DEFAULT_QUERY_LIMITS) as (keyof QueryLimits)[]) {
    const value = overrides[key];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new TypeError(`Query limit ${key} must be a positive integer, got ${value}`);
    }
    limits[key] = value;
  }
  return Object.freeze(limits);
}

/** Throws the 400 for an exceeded limit, naming what was too large and the allowed maximum. */
export function limitExceeded(what: Message, max: number): never {
  throw apiError("query.limitExceeded", { what, max });
}

/**
 * UTF-8 length of a string without allocating, so an oversized `q` is rejected before any
 * parsing work. Lone surrogates count as the 3 bytes of their U+FFFD replacement.
 * @example utf8Length("é") // 2
 */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
