import { define, refine, string, type Struct } from "superstruct";

/** RFC 5322's `atext`: what a dot-separated part of the local part may hold. */
const ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]";
/** A domain label as hostnames have them: letters, digits and inner hyphens, at most 63 characters. */
const LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";

/**
 * The one grammar `email()` takes, and the OpenAPI document's `pattern` for it: the WHATWG
 * HTML "valid e-mail address" (what `<input type="email">` accepts), narrowed so that every
 * address also is an RFC 5321 mailbox (`format: email`): the local part is a dot-atom (no
 * leading, trailing or doubled dot) and the domain has at least two labels. ASCII only, so
 * control characters, bidi controls (U+202E), zero-width ones (U+200B) and markup (`<`) are
 * refused, and so are internationalized addresses (`ü@example.com`). Linear in the length of
 * the value: every repetition is separated by a character the repeated part cannot hold, and
 * a label backtracks over at most 62 characters.
 */
export const EMAIL_PATTERN = new RegExp(`^${ATEXT}+(?:\\.${ATEXT}+)*@(?:${LABEL}\\.)+${LABEL}$`);

/**
 * Whether a string is an address `email()` takes ({@link EMAIL_PATTERN}).
 * @example looksLikeEmail("ada@example.com") // true
 * @example looksLikeEmail("ada@localhost")   // false: one label
 * @example looksLikeEmail("a..b@example.com") // false: not a dot-atom
 */
export function looksLikeEmail(value: string): boolean {
  return EMAIL_PATTERN.test(value);
}

/** A string that looks like an email address; fails with "must be a valid email address.". */
export function email(): Struct<string, null> {
  return refine(string(), "email", looksLikeEmail);
}

/** An integer that is a record id (≥ 1), for foreign keys such as `user_id`. */
export function id(): Struct<number, null> {
  return define<number>("integer", (value) => Number.isSafeInteger(value) && (value as number) >= 1);
}
