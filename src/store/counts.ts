import { EJSON } from "bson";
import type { Collection, Document } from "mongodb";

import type { CountMethod, CountStrategy } from "../plan/read.ts";

export { COUNT_STRATEGIES, type CountMethod, type CountStrategy } from "../plan/read.ts";

/** A model's bounds on counting (the model's `countLimit` and `maxExactCount`). */
export interface CountBounds {
  /** Where `estimated` stops counting a filtered list. */
  readonly countLimit: number;
  /** Where exact counts stop, or null for never. */
  readonly maxExactCount: number | null;
}

/** A list's total and how it was produced (`total` is null with `none`). */
export interface CountResult {
  total: number | null;
  method: CountMethod;
}

interface Kept {
  version: number;
  value: number;
}

/** Bound of kept counts per collection; the oldest go first. */
const MAX_KEPT = 1000;

/**
 * Counts one collection's records by a strategy, and keeps counts for reuse: a count for a
 * filter stays valid exactly until the collection is next written, which `changeCount` (the
 * embedded engine's per-collection write counter) tells. Without it (MongoDB, where other
 * processes write) nothing is kept.
 */
export class RecordCounter {
  readonly #kept = new Map<string, Kept>();

  constructor(
    private readonly collection: Collection<Document>,
    private readonly bounds: CountBounds,
    private readonly timeMs: number,
    private readonly changeCount?: () => number,
  ) {}

  /**
   * The total for `filter` under `strategy`: exact (capped at the model's `maxExactCount`),
   * estimated (collection metadata without a filter, else a count capped at `countLimit`), or none.
   */
  async count(filter: Document, strategy: CountStrategy): Promise<CountResult> {
    if (strategy === "none") return { total: null, method: "none" };
    const empty = Object.keys(filter).length === 0;
    if (strategy === "estimated" && empty) {
      const total = await this.collection.estimatedDocumentCount({ maxTimeMS: this.timeMs });
      return { total, method: "estimated" };
    }
    const cap = strategy === "estimated" ? this.bounds.countLimit : this.bounds.maxExactCount;
    if (cap === null) return { total: await this.countReused(filter, undefined), method: "exact" };
    // One more than the cap tells "exactly cap" from "more than cap".
    const counted = await this.countReused(filter, cap + 1);
    return counted > cap ? { total: cap, method: "capped" } : { total: counted, method: "exact" };
  }

  private async countReused(filter: Document, limit: number | undefined): Promise<number> {
    if (this.changeCount === undefined) return await this.countDocuments(filter, limit);
    // An unfiltered list (the common case) skips EJSON, whose answer for it is "{}".
    const key = `${limit ?? ""}|${Object.keys(filter).length === 0 ? "{}" : EJSON.stringify(filter)}`;
    const version = this.changeCount();
    const kept = this.#kept.get(key);
    if (kept !== undefined && kept.version === version) return kept.value;
    const value = await this.countDocuments(filter, limit);
    // Kept only if no write to the collection finished meanwhile: then it is the count at `version`.
    if (this.changeCount() === version) this.keep(key, { version, value });
    return value;
  }

  private keep(key: string, kept: Kept): void {
    this.#kept.delete(key);
    this.#kept.set(key, kept);
    if (this.#kept.size > MAX_KEPT) this.#kept.delete(this.#kept.keys().next().value!);
  }

  private async countDocuments(filter: Document, limit: number | undefined): Promise<number> {
    const maxTimeMS = this.timeMs;
    return await this.collection.countDocuments(filter, limit === undefined ? { maxTimeMS } : { limit, maxTimeMS });
  }
}
