import { define, refine, string, type Struct } from "superstruct";

// Deliberately simple: one "@", no spaces, a dot in the domain. Full RFC 5322 parsing
// rejects nothing useful and accepts addresses no mail server delivers to.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** A string that looks like an email address; fails with "must be a valid email address.". */
export function email(): Struct<string, null> {
  return refine(string(), "email", (value) => EMAIL.test(value));
}

/** An integer that is a record id (≥ 1), for foreign keys such as `user_id`. */
export function id(): Struct<number, null> {
  return define<number>("integer", (value) => Number.isSafeInteger(value) && (value as number) >= 1);
}
