import { apiError } from "../errors.ts";
import type { ReadBudget } from "../plan/read.ts";
import { type QueryLimits, utf8Length } from "./limits.ts";

/**
 * What one read response may still carry: related records (through `with`) and bytes. Charged
 * as the relations load, level by level, before the next level is read and before anything is
 * serialized, so an over-budget request stops with a 400 having read at most one level too many.
 * A record is charged as often as it will be written out: JSON has no references, so a
 * `belongsTo` owner shared by ten records of the page is ten copies in the body.
 */
export class ResponseBudget implements ReadBudget {
  #records: number;
  #bytes: number;
  readonly #limits: Pick<QueryLimits, "maxRelatedRecords" | "maxResponseBytes">;

  constructor(limits: Pick<QueryLimits, "maxRelatedRecords" | "maxResponseBytes">) {
    this.#limits = limits;
    this.#records = limits.maxRelatedRecords;
    this.#bytes = limits.maxResponseBytes;
  }

  /** Related records still allowed. */
  get recordsLeft(): number {
    return this.#records;
  }

  /** Takes `copies` of a related record of about `bytes` bytes; past either budget, the 400. */
  charge(copies: number, bytes: number): void {
    this.#records -= copies;
    this.#bytes -= copies * bytes;
    if (this.#records < 0) this.overRecords();
    if (this.#bytes < 0) throw responseTooLarge(this.#limits.maxResponseBytes);
  }

  /** The 400 for more related records than the budget allows. */
  overRecords(): never {
    throw apiError("query.tooManyRelated", { max: this.#limits.maxRelatedRecords });
  }
}

/** The 400 for a response body over `maxResponseBytes`. */
export function responseTooLarge(max: number): Error {
  return apiError("query.responseTooLarge", { max });
}

/**
 * `JSON.stringify(body)`, byte for byte, refusing a result over `max` UTF-8 bytes with the 400
 * of {@link responseTooLarge}. A list's `data` is written record by record, and writing stops
 * at the first record past the ceiling, so an oversized page is never built whole.
 */
export function boundedJson(body: unknown, max: number): string {
  const data = firstData(body);
  if (data === undefined) return checked(JSON.stringify(body), max);
  const { data: _data, ...rest } = body as { data: unknown[] };
  const parts: string[] = [];
  let length = 0;
  for (const record of data) {
    const part = JSON.stringify(record) ?? "null";
    length += part.length + 1;
    if (length > max) throw responseTooLarge(max);
    parts.push(part);
  }
  const tail = JSON.stringify(rest);
  return checked(`{"data":[${parts.join(",")}]${tail === "{}" ? "}" : `,${tail.slice(1)}`}`, max);
}

/** The `data` array of a body whose first key it is (a list's), else undefined. */
function firstData(body: unknown): unknown[] | undefined {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return undefined;
  if ("toJSON" in body) return undefined;
  for (const key in body) {
    const data = (body as Record<string, unknown>)[key];
    return key === "data" && Array.isArray(data) ? data : undefined;
  }
  return undefined;
}

/** `text` if its UTF-8 size is within `max` (counted only when its length alone cannot decide). */
function checked(text: string, max: number): string {
  if (text.length > max || (text.length * 3 > max && utf8Length(text) > max)) {
    throw responseTooLarge(max);
  }
  return text;
}
