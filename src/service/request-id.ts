// Letters, digits and a few separators, as UUIDs, ULIDs and trace ids are written.
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

/** Ids a process hands out before it draws a new prefix (the counter's 12 hex digits). */
const COUNTER_SPAN = 2 ** 48;

/** The counter's last two hexadecimal digits, for each of their 256 values. */
const LOW_DIGITS = Array.from({ length: 256 }, (_, value) => value.toString(16).padStart(2, "0"));

/**
 * Fresh request ids, shaped as version 4 UUIDs: `xxxxxxxx-xxxx-4xxx-Vxxx-` drawn at random
 * once per process (74 random bits), then a 12-digit hexadecimal counter. They are unique (the
 * counter within a process, the random prefix between processes) at a fraction of
 * `crypto.randomUUID()`'s cost on the hot path (~0.4 µs a call with the flattening of its
 * text). They are not secret, and need not be: an id only ties a response to its log lines,
 * and a client may send an X-Request-Id of its own anyway. The counter's first ten digits are
 * written once per 256 ids, and its last two come from a table: converting the number to
 * hexadecimal and padding it on every request cost more than the rest of the id.
 */
class RequestIds {
  #prefix = "";
  /** The prefix and the counter's first ten digits. */
  #head = "";
  #count = COUNTER_SPAN;

  next(): string {
    if (this.#count >= COUNTER_SPAN) {
      this.#prefix = crypto.randomUUID().slice(0, 24);
      this.#count = 0;
    }
    const count = this.#count++;
    const low = count % 256;
    if (low === 0) this.#head = this.#prefix + Math.floor(count / 256).toString(16).padStart(10, "0");
    return this.#head + LOW_DIGITS[low]!;
  }
}

const fresh = new RequestIds();

/** The client's X-Request-Id when it is sane, else a fresh UUID-shaped id. */
export function requestIdOf(request: Request): string {
  const given = request.headers.get("x-request-id");
  return given !== null && SANE_REQUEST_ID.test(given) ? given : fresh.next();
}
