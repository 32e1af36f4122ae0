import type { Iterator as LazyIterator } from "mingo/lazy";
import { bsonTag } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { approximateSize } from "../sizes.ts";

export { approximateSize };

/**
 * How much memory a command may make the engine hold, and MongoDB's errors for going past it.
 * MongoDB 7.0 bounds the values aggregation builds and the state of its blocking stages with
 * server parameters (all 100 MiB by default: internalQueryMaxRangeBytes, internalQueryMaxPushBytes,
 * internalQueryMaxAddToSetBytes, internalQueryTopNAccumulatorBytes,
 * internalDocumentSourceGroupMaxMemoryBytes, internalQueryMaxBlockingSortMemoryUsageBytes,
 * internalDocumentSourceSetWindowFieldsMaxMemoryBytes, internalQueryFacetMaxOutputDocSizeBytes,
 * internalLookupStageIntermediateDocumentMaxSizeBytes, $graphLookup's maxMemoryUsageBytes) and
 * strings with BSONObjMaxUserSize (16 MiB, RCString::create). The engine cannot spill to disk,
 * so these hold whatever `allowDiskUse` says, with the error MongoDB gives when it may not spill.
 *
 * Sizes are estimates, as MongoDB's own accounting is (Value::getApproximateSize): 16 bytes a
 * value, plus a string's characters, an array's slots and a document's fields. Tests lower the
 * limits to reach them with small data.
 */
export const memoryLimits = {
  /** `$range` (internalQueryMaxRangeBytes). */
  range: 100 * 1024 * 1024,
  /** What the expressions evaluated for one document build in all (the engine's own; see {@link chargeExpression}). */
  expressions: 100 * 1024 * 1024,
  /** A string any expression builds (BSONObjMaxUserSize). */
  string: 16 * 1024 * 1024,
  /** A `$push` accumulator (internalQueryMaxPushBytes). */
  push: 100 * 1024 * 1024,
  /** An `$addToSet` accumulator (internalQueryMaxAddToSetBytes). */
  addToSet: 100 * 1024 * 1024,
  /** `$firstN`, `$lastN`, `$maxN`, `$minN`, `$topN`, `$bottomN` (internalQueryTopNAccumulatorBytes). */
  topN: 100 * 1024 * 1024,
  /** A `$group`'s groups (internalDocumentSourceGroupMaxMemoryBytes). */
  group: 100 * 1024 * 1024,
  /** A blocking sort, `$bucketAuto`'s too (internalQueryMaxBlockingSortMemoryUsageBytes). */
  sort: 100 * 1024 * 1024,
  /** A `$setWindowFields` stage (internalDocumentSourceSetWindowFieldsMaxMemoryBytes). */
  windows: 100 * 1024 * 1024,
  /** The document `$facet` builds (internalQueryFacetMaxOutputDocSizeBytes). */
  facet: 100 * 1024 * 1024,
  /** One document's `$lookup` matches (internalLookupStageIntermediateDocumentMaxSizeBytes). */
  lookup: 100 * 1024 * 1024,
  /** A `$graphLookup`'s visited documents and frontier (its maxMemoryUsageBytes). */
  graphLookup: 100 * 1024 * 1024,
};

const VALUE = 16;
const ARRAY = 24;
const DOCUMENT = 64;

/**
 * What a value an expression just made adds to memory, not counting what it shares with
 * values that were there before: a string's characters, an array's slots, a document's fields.
 */
export function builtSize(value: unknown): number {
  if (typeof value === "string") return VALUE + value.length;
  if (Array.isArray(value)) return VALUE + ARRAY + VALUE * value.length;
  if (typeof value === "object" && value !== null && bsonTag(value) === undefined && !(value instanceof Date)) {
    return VALUE + DOCUMENT + 24 * Object.keys(value).length;
  }
  return VALUE;
}

/** `collection` with each document counted by `tracker` as it passes: a stage holding them is refused in time. */
export function counted(collection: LazyIterator, tracker: MemoryTracker): LazyIterator {
  return collection.map((doc) => {
    tracker.addValue(doc);
    return doc;
  });
}

/** 146, ExceededMemoryLimit, with `message`. */
export function exceeded(message: string): CommandError {
  return new CommandError("ExceededMemoryLimit", message);
}

/** What the expressions evaluated for the current document have built so far. */
const evaluation = { root: undefined as unknown, used: 0 };

/** The document expressions are being evaluated for (mingo's `$$ROOT`). */
function rootOf(options: unknown): unknown {
  return (options as { local?: { root?: unknown } } | undefined)?.local?.root;
}

/**
 * Counts `bytes` an expression (`op`) is about to build, or has built, for the document being
 * evaluated, and refuses once what the document's expressions built in all passes
 * {@link memoryLimits.expressions}. MongoDB 7.0 bounds `$range` alone (and strings, to 16 MiB):
 * a `$project` of a thousand `$concatArrays` of a large array grows the heap until the process
 * dies. The count starts afresh with each document (each `$$ROOT`).
 */
export function chargeExpression(options: unknown, op: string, bytes: number): void {
  const root = rootOf(options);
  if (root !== evaluation.root) {
    evaluation.root = root;
    evaluation.used = 0;
  }
  evaluation.used += bytes;
  if (evaluation.used > memoryLimits.expressions) {
    const used = evaluation.used;
    evaluation.used = 0;
    throw exceeded(
      `${op} would use too much memory (${used} bytes for one document's expressions) and cannot spill to disk. ` +
        `Memory limit: ${memoryLimits.expressions} bytes`,
    );
  }
}

/**
 * Runs `work`, an expression whose steps each build a value that replaces the last (`$reduce`):
 * at each step `work` calls `settle` with the value it holds, and what the earlier steps built
 * stops counting, as it is garbage.
 */
export function withExpressionScope<T>(options: unknown, work: (settle: (value: unknown) => void) => T): T {
  const root = rootOf(options);
  if (root !== evaluation.root) {
    evaluation.root = root;
    evaluation.used = 0;
  }
  const before = evaluation.used;
  return work((value) => {
    evaluation.used = before + builtSize(value);
  });
}

/** A string `op` would build of `length` characters: refused past 16 MiB (16493), as MongoDB's RCString is. */
export function refuseLongString(length: number): void {
  if (length + 1 >= memoryLimits.string) {
    throw new CommandError(
      "Location16493",
      `Tried to create string longer than ${Math.floor(memoryLimits.string / 1024 / 1024)}MB`,
    );
  }
}

/**
 * A running count of bytes a stage or accumulator holds, refused with `refusal()` once it
 * reaches `limit()` (read at each check, so tests may lower the limits).
 */
export class MemoryTracker {
  used = 0;

  constructor(private readonly limit: () => number, private readonly refusal: (used: number) => CommandError) {}

  /** Adds a value's approximate size (measured no further than the limit). */
  addValue(value: unknown): void {
    this.add(approximateSize(value, this.limit() - this.used + 1));
  }

  /** Adds `bytes`; refuses once at or past the limit. */
  add(bytes: number): void {
    this.used += bytes;
    if (this.used >= this.limit()) throw this.refusal(this.used);
  }
}

/** What a `$group` holds: past its limit, MongoDB's refusal when it may not spill (292). */
export function groupMemory(): MemoryTracker {
  return new MemoryTracker(() => memoryLimits.group, () =>
    new CommandError(
      "QueryExceededMemoryLimitNoDiskUseAllowed",
      "Exceeded memory limit for $group, but didn't allow external sort. Pass allowDiskUse:true to opt in.",
    ));
}

/** What a blocking sort holds (`$sort`, `$bucketAuto`, find's sort): past its limit, the sorter's refusal (292). */
export function sortMemory(): MemoryTracker {
  return new MemoryTracker(() => memoryLimits.sort, () =>
    new CommandError(
      "QueryExceededMemoryLimitNoDiskUseAllowed",
      `Sort exceeded memory limit of ${memoryLimits.sort} bytes, but did not opt in to external sorting.`,
    ));
}

/** What `$setWindowFields` holds: past its limit, 5414201. */
export function windowMemory(): MemoryTracker {
  return new MemoryTracker(() => memoryLimits.windows, (used) =>
    new CommandError(
      "Location5414201",
      `Exceeded memory limit in DocumentSourceSetWindowFields, used ${used} bytes but max allowed is ${memoryLimits.windows}`,
    ));
}

/** The document `$facet` builds: past its limit, 4031700. */
export function facetMemory(): MemoryTracker {
  return new MemoryTracker(() => memoryLimits.facet + 1, (used) =>
    new CommandError(
      "Location4031700",
      `document constructed by $facet is ${used} bytes, which exceeds the limit of ${memoryLimits.facet} bytes`,
    ));
}

/** One input document's `$lookup` matches in `from`: past their limit, 4568. */
export function lookupMemory(from: string): MemoryTracker {
  return new MemoryTracker(() => memoryLimits.lookup + 1, () =>
    new CommandError(
      "Location4568",
      `Total size of documents in ${from} matching pipeline's $lookup stage exceeds ${memoryLimits.lookup} bytes`,
    ));
}

/** What a `$graphLookup` has visited and has yet to visit: past its limit, 40099. */
export function graphLookupMemory(): MemoryTracker {
  return new MemoryTracker(
    () => memoryLimits.graphLookup,
    () => new CommandError("Location40099", "$graphLookup reached maximum memory consumption"),
  );
}
