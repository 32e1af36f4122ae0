import { define, refine, string, type Struct } from "superstruct";

const WHITESPACE = /\s/;

/**
 * Deliberately simple: one "@" with text on both sides, no whitespace, and a dot inside the
 * domain (not its first or last character). Full RFC 5322 parsing rejects nothing useful and
 * accepts addresses no mail server delivers to. Written with index scans, not one regex:
 * `^[^\s@]+@[^\s@]+\.[^\s@]+$` backtracks quadratically on "a@....… " and stalled the server.
 * Every step here is a single pass, so the check is linear in the length of the value.
 * @example looksLikeEmail("ada@example.com") // true
 * @example looksLikeEmail("ada@localhost")   // false
 */
export function looksLikeEmail(value: string): boolean {
  const at = value.indexOf("@");
  if (at < 1 || value.indexOf("@", at + 1) !== -1 || WHITESPACE.test(value)) return false;
  const domain = value.slice(at + 1);
  const dot = domain.indexOf(".", 1);
  return dot !== -1 && dot < domain.length - 1;
}

/** A string that looks like an email address; fails with "must be a valid email address.". */
export function email(): Struct<string, null> {
  return refine(string(), "email", looksLikeEmail);
}

/** An integer that is a record id (≥ 1), for foreign keys such as `user_id`. */
export function id(): Struct<number, null> {
  return define<number>("integer", (value) => Number.isSafeInteger(value) && (value as number) >= 1);
}
