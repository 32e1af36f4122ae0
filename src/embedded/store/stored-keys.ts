import { Buffer } from "node:buffer";
import { int32, nameIs, walkFields } from "../decode.ts";
import type { DocTable } from "./doc-table.ts";
import { compareNonNaN } from "./values.ts";

/** The kind of a probe's key value, which says the BSON type a stored value must have to compare on the bytes. */
const STRING = 1, NUMBER = 2, DATE = 3;

/**
 * Compares one key tuple (the probe) with the keys of stored documents on their BSON bytes,
 * decoding nothing: strings by their UTF-8 bytes (MongoDB's binary order, see strings.ts),
 * int32 and double numbers by value, dates by their milliseconds. A merge of many entries into
 * a large index compares each with a few dozen stored documents, and decoding their keys each
 * time was most of a journaled start-up's index build (docs/benchmarks.md).
 *
 * Anything else (another type, types that differ, NaN, a field missing or named in non-ASCII)
 * answers undefined, and the caller compares decoded keys as before. For flat indexes without
 * a collation only: their keys are the documents' top-level values.
 */
export class StoredKeyComparer {
  readonly #kinds: Uint8Array;
  /** Per field, a buffer reused for the probe's string as UTF-8, and the bytes it holds. */
  readonly #texts: Buffer[];
  readonly #textLength: Int32Array;
  readonly #numbers: Float64Array;
  readonly #valueAt: Int32Array;
  readonly #typeOf: Uint8Array;
  #bytes: Buffer = Buffer.alloc(0);
  #found = 0;
  readonly #visit: (nameStart: number, nameEnd: number, type: number, at: number) => boolean;

  /** For an index on the top-level `fields` in directions `dirs`, over the documents of `table`. */
  constructor(
    private readonly fields: readonly string[],
    private readonly dirs: readonly (1 | -1)[],
    private readonly table: DocTable,
  ) {
    const w = fields.length;
    this.#kinds = new Uint8Array(w);
    this.#texts = Array.from({ length: w }, () => Buffer.allocUnsafe(64));
    this.#textLength = new Int32Array(w);
    this.#numbers = new Float64Array(w);
    this.#valueAt = new Int32Array(w);
    this.#typeOf = new Uint8Array(w);
    this.#visit = (nameStart, nameEnd, type, at) => {
      for (let f = 0; f < w; f++) {
        if (this.#valueAt[f] < 0 && nameIs(this.#bytes, nameStart, nameEnd, fields[f])) {
          this.#valueAt[f] = at;
          this.#typeOf[f] = type;
          this.#found++;
          break;
        }
      }
      return this.#found < w;
    };
  }

  /**
   * Makes entry `j` of `keys` (tuples of the index's width, laid end to end) the probe; false
   * when one of its values cannot be compared on the bytes (then {@link compare} is not to be used).
   */
  setProbe(keys: readonly unknown[], j: number): boolean {
    const w = this.fields.length;
    for (let f = 0; f < w; f++) {
      const value = keys[j * w + f];
      if (typeof value === "string") {
        this.#kinds[f] = STRING;
        this.#textLength[f] = this.#encode(f, value);
      } else if (typeof value === "number" && value === value) {
        this.#kinds[f] = NUMBER;
        this.#numbers[f] = value;
      } else if (value instanceof Date && !Number.isNaN(value.getTime())) {
        this.#kinds[f] = DATE;
        this.#numbers[f] = value.getTime();
      } else {
        return false;
      }
    }
    return true;
  }

  /**
   * Document `n`'s key tuple against the probe, directions applied: negative when it sorts
   * before, 0 when the keys are equal (the `_id`s then decide), positive after; undefined when
   * the bytes cannot tell.
   */
  compare(n: number): number | undefined {
    const w = this.fields.length;
    this.#bytes = this.table.chunk(n);
    this.#valueAt.fill(-1);
    this.#found = 0;
    const start = this.table.start(n);
    if (!walkFields(this.#bytes, start, int32(this.#bytes, start), this.#visit) || this.#found < w) {
      return undefined;
    }
    for (let f = 0; f < w; f++) {
      const c = this.#compareField(f);
      if (c !== 0) return c === undefined ? undefined : c * this.dirs[f];
    }
    return 0;
  }

  // Writes `text` as UTF-8 into field f's buffer, grown when it may not fit; returns the bytes written.
  #encode(f: number, text: string): number {
    if (text.length * 3 > this.#texts[f].length) this.#texts[f] = Buffer.allocUnsafe(text.length * 3);
    return this.#texts[f].write(text, 0, "utf8");
  }

  #compareField(f: number): number | undefined {
    const bytes = this.#bytes, at = this.#valueAt[f], type = this.#typeOf[f];
    switch (this.#kinds[f]) {
      case STRING: {
        if (type !== 0x02) return undefined;
        return bytes.compare(this.#texts[f], 0, this.#textLength[f], at + 4, at + 3 + int32(bytes, at));
      }
      case NUMBER: {
        const stored = type === 0x10 ? int32(bytes, at) : type === 0x01 ? bytes.readDoubleLE(at) : NaN;
        return stored === stored ? compareNonNaN(stored, this.#numbers[f]) : undefined;
      }
      case DATE: {
        // Only a date is known to have 8 bytes here: a shorter value may end the chunk.
        if (type !== 0x09) return undefined;
        const high = int32(bytes, at + 4);
        // Beyond 2^53 ms (far outside a JS Date's range) the milliseconds are not exact in a double.
        if (high >= 2 ** 21 || high < -(2 ** 21)) return undefined;
        return compareNonNaN(high * 2 ** 32 + bytes.readUInt32LE(at), this.#numbers[f]);
      }
    }
    return undefined;
  }
}
