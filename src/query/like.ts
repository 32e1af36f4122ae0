import { apiError } from "../errors.ts";
import { type MessageParam, msg } from "../i18n/message.ts";

/** A MongoDB `$regex` operand; `$options` is only present for the case-insensitive forms. */
export interface RegexOperand {
  $regex: string;
  $options?: string;
}

/**
 * Most wildcards one pattern may hold (runs like `**` count once). Each middle wildcard
 * adds a group to the regex; the cap keeps patterns far below MongoDB's regex size limit.
 */
export const MAX_LIKE_WILDCARDS = 20;

const WILDCARDS = /[*%]+/;
const SYNTAX = /[\\^$.|?*+()[\]{}\/]/g;
// Control characters are what this pattern is for: they are escaped out of like-patterns.
// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x1f]/g;
const ANY = "[\\s\\S]";
// PCRE's `$` also matches before a final "\n" and JS has no `\z`; "no character follows"
// means the true end in both engines.
const END = `(?!${ANY})`;

function escapeLiteral(text: string): string {
  return text
    .replace(SYNTAX, "\\$&")
    // A NUL cannot travel inside a BSON regex and other control characters are easier to
    // read escaped; `\xHH` means the same in JavaScript and PCRE.
    .replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

/**
 * Finds a middle segment at its leftmost position and then never backtracks into it: a
 * lookahead is atomic in both JavaScript and PCRE, and the backreference consumes exactly
 * what it captured. Leftmost is always right for `*`-only patterns, so matching stays
 * linear in the subject per segment instead of exponential in the number of wildcards.
 * `(?:\N)` rather than `\N` so a following digit is not read as part of the group number.
 */
function atomicSegment(segment: string, group: number): string {
  return `(?=(${ANY}*?${escapeLiteral(segment)}))(?:\\${group})`;
}

/**
 * Regex source matching the whole subject against a like-pattern. `*` and `%` are
 * wildcards for any run of characters (newlines included); every other character,
 * `_` too, is literal.
 * @example likeSource("Karl")    // "^Karl(?![\\s\\S])"
 * @example likeSource("K*l")     // "^K[\\s\\S]*l(?![\\s\\S])"
 * @example likeSource("%a.b%")   // "^(?=([\\s\\S]*?a\\.b))(?:\\1)[\\s\\S]*(?![\\s\\S])"
 * @example likeSource("*")       // "^[\\s\\S]*(?![\\s\\S])"
 */
export function likeSource(pattern: string, where: MessageParam = msg("query.likePattern")): string {
  const segments = pattern.split(WILDCARDS);
  if (segments.length === 1) return `^${escapeLiteral(pattern)}${END}`;
  if (segments.length - 1 > MAX_LIKE_WILDCARDS) {
    throw apiError("query.likeWildcards", { where, count: segments.length - 1, max: MAX_LIKE_WILDCARDS });
  }
  const first = segments[0];
  const last = segments[segments.length - 1];
  const middle = segments.slice(1, -1).map((segment, i) => atomicSegment(segment, i + 1));
  return `^${escapeLiteral(first)}${middle.join("")}${ANY}*${escapeLiteral(last)}${END}`;
}

/**
 * The `$regex` operand for `$like` (case-sensitive) or `$iLike` (case-insensitive).
 * @example likeRegex("kar*", true) // { $regex: "^kar[\\s\\S]*(?![\\s\\S])", $options: "i" }
 */
export function likeRegex(pattern: string, caseInsensitive: boolean, where?: string): RegexOperand {
  const $regex = likeSource(pattern, where);
  return caseInsensitive ? { $regex, $options: "i" } : { $regex };
}
