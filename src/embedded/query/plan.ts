import type { Document } from "bson";
import type { Collation } from "../store/collation.ts";
import type { Collection } from "../store/collection.ts";
import { compareValues } from "../store/values.ts";
import { compileFilter, isEmptyFilter, type Predicate } from "./filter.ts";
import { scanIdRanges } from "./id-scan.ts";
import { countInRanges, scanIndex, scanIndexNumbers, type ScanStats } from "./index-scan.ts";
import { mergeScans } from "./or-merge.ts";
import { hintedPlan, resolveHint } from "./hinted-plan.ts";
import { choosePlan, type Plan, type SortKey, sortKeys } from "./planner.ts";
import { sortDocuments, sortPausedDocuments } from "./sort.ts";
import { atInterruptPoint, checkForInterrupt, PAUSE, type Paused } from "./interrupts.ts";

export type { Plan } from "./planner.ts";

/** What a find-like read asks for. `limit` 0 means no limit. */
export interface ReadSpec {
  filter?: unknown;
  sort?: unknown;
  skip?: number;
  limit?: number;
  /** How strings compare in the filter and the sort (none: binary). */
  collation?: Collation;
  /** True for a read that only describes its plan (explain): it counts in no usage statistics. */
  untracked?: boolean;
  /**
   * The command's `hint` (an index name, a key pattern or `{$natural: ±1}`), already checked
   * (commands/hint.ts): the plan follows it, as MongoDB's does, whatever another would cost.
   */
  hint?: unknown;
}

/**
 * Work counters of all reads, for tests that assert on work done rather than time: `examined`
 * counts documents tested against a filter, `sorted` documents put through a sort because the
 * plan did not yield them in order.
 */
export const planStats = { examined: 0, sorted: 0 };

/**
 * A read in progress: its plan, its lazy output and the work it has done so far. The output of
 * a sliced read (see {@link planPausingRead}) holds pauses between its documents.
 */
export interface PlannedRead<T = Document> {
  plan: Plan;
  keys: SortKey[];
  docs: Iterator<T>;
  stats: ScanStats;
}

/**
 * Counts the documents a plan reads; every INTERRUPT_EVERY of them is an interrupt point: a
 * sliced read hands up a pause there (after the document, so the scan below is suspended just
 * past it, as a cursor between getMores is, and finds its place again after writes), any other
 * checks the deadline of the running operation.
 */
function* counted(source: Iterable<Document>, stats: ScanStats, sliced: boolean): Generator<Paused<Document>> {
  for (const doc of source) {
    // Counted before it is handed up: a reader that has enough never asks for the next step.
    const examined = ++stats.docsExamined;
    yield doc;
    if (atInterruptPoint(examined)) {
      if (sliced) yield PAUSE;
      else checkForInterrupt();
    }
  }
}

function* filtered(source: Iterable<Paused<Document>>, predicate: Predicate): Generator<Paused<Document>> {
  if (predicate === null) return yield* source;
  for (const doc of source) {
    if (doc === PAUSE) yield doc;
    else {
      planStats.examined++;
      if (predicate(doc)) yield doc;
    }
  }
}

function* window(source: Iterator<Paused<Document>>, skip: number, limit: number): Generator<Paused<Document>> {
  for (let i = 0; i < skip;) {
    const step = source.next();
    if (step.done) return;
    if (step.value === PAUSE) yield PAUSE;
    else i++;
  }
  for (let n = 0; limit === 0 || n < limit;) {
    const step = source.next();
    if (step.done) return;
    if (step.value !== PAUSE) n++;
    yield step.value;
  }
}

/** Counts a plan that is about to run into its collection's usage (`$indexStats`, `$collStats`). */
function notePlan(coll: Collection, plan: Plan): void {
  switch (plan.kind) {
    case "collscan":
      return coll.usage.scanned();
    case "id":
    case "idrange":
      return coll.usage.usedIndex("_id_");
    case "ixscan":
      return coll.usage.usedIndex(plan.scan.index.spec.name);
  }
}

function idDocs(coll: Collection, values: readonly unknown[]): Document[] {
  const found = new Set<Document>();
  for (const v of values) {
    const doc = coll.docs.get(v);
    if (doc) found.add(doc);
  }
  return [...found].sort((a, b) => compareValues(a._id, b._id));
}

/**
 * The documents a plan reads, tested against the filter unless the plan decides it, counted
 * into `stats`. `skip` is how many leading matches to pass over without fetching them, which
 * only an exact, ordered plan can do; the caller skips the rest.
 */
function source(
  coll: Collection,
  plan: Plan,
  filter: unknown,
  stats: ScanStats,
  skip: number,
  sliced: boolean,
  collation?: Collation,
): { docs: Iterable<Paused<Document>>; skipped: number } {
  const predicate = plan.exact ? null : compileFilter(filter, collation);
  switch (plan.kind) {
    case "collscan": {
      const fast = predicate === null && plan.ordered ? skip : 0;
      // Passed over by position, yet examined as MongoDB's SKIP over a COLLSCAN examines them.
      stats.docsExamined += Math.min(fast, coll.docs.size);
      const docs = counted(coll.docs.iterate(plan.reverse, fast), stats, sliced);
      return { docs: filtered(docs, predicate), skipped: fast };
    }
    case "id":
      return { docs: filtered(counted(idDocs(coll, plan.values), stats, sliced), predicate), skipped: 0 };
    case "idrange": {
      const docs = counted(scanIdRanges(coll.docs, plan.bounds.intervals, plan.reverse, stats), stats, sliced);
      return { docs: filtered(docs, predicate), skipped: 0 };
    }
    case "ixscan": {
      const fast = plan.exact && plan.ordered && !plan.scan.index.multikey && !plan.branches ? skip : 0;
      const docs = counted(indexDocs(plan, stats, fast), stats, sliced);
      // A hinted sparse or partial index reads only what it covers (see Plan's `coverage`).
      const covered = plan.coverage ? filtered(docs, plan.coverage) : docs;
      return { docs: filtered(covered, predicate), skipped: fast };
    }
  }
}

/** The documents of an index plan: one scan, or the merged scans of an `$or`'s branches. */
function indexDocs(plan: Extract<Plan, { kind: "ixscan" }>, stats: ScanStats, skip = 0): Iterable<Document> {
  if (plan.branches) return mergeScans(plan.scan.index, plan.branches, plan.scan.reverse, stats);
  return scanIndex(plan.scan, plan.ranges, stats, skip);
}

function* sortedCount(source: Iterable<Paused<Document>>): Generator<Paused<Document>> {
  for (const doc of source) {
    if (doc !== PAUSE) planStats.sorted++;
    yield doc;
  }
}

/**
 * Plans and starts a read, lazily. An ordered plan streams and stops after skip + limit
 * matches (an exact one passes over the skipped entries without fetching them); otherwise the
 * matches go through a bounded sort that keeps at most skip + limit of them (see sortDocuments).
 * A `sliced` read hands up a pause every INTERRUPT_EVERY documents it examines, its consumer's
 * chance to let other commands run (query/interrupts.ts); the sort of an exact index read's
 * sort fields (sortedByFields) never pauses, as its stand-ins hold document numbers that a
 * write in between could reuse, and only checks the deadline.
 */
export function planPausingRead(
  coll: Collection | undefined,
  spec: ReadSpec,
  sliced: boolean,
): PlannedRead<Paused<Document>> | undefined {
  const keys = sortKeys(spec.sort);
  if (!coll) return undefined;
  const skip = spec.skip ?? 0;
  const limit = spec.limit ?? 0;
  const stats: ScanStats = { keysExamined: 0, docsExamined: 0 };
  const hint = spec.hint === undefined ? undefined : resolveHint(coll, spec.hint);
  const plan = hint
    ? hintedPlan(coll, hint, spec.filter, keys, spec.sort !== undefined && spec.sort !== null, spec.collation)
    : choosePlan(coll, spec.filter, keys, limit > 0 ? skip + limit : Infinity, spec.collation);
  if (spec.untracked !== true) notePlan(coll, plan);
  if (plan.ordered) {
    const { docs, skipped } = source(coll, plan, spec.filter, stats, skip, sliced, spec.collation);
    return { plan, keys, stats, docs: window(docs[Symbol.iterator](), skip - skipped, limit) };
  }
  const byFields = sortedByFields(coll, plan, keys, stats, skip, limit, spec.collation);
  if (byFields) return { plan, keys, stats, docs: byFields[Symbol.iterator]() };
  const { docs } = source(coll, plan, spec.filter, stats, 0, sliced, spec.collation);
  const sortSpec = Object.fromEntries(keys);
  const matches = sortedCount(docs);
  const sorted = sliced
    ? sortPausedDocuments(matches, sortSpec, skip, limit, spec.collation)
    : sortDocuments(matches, sortSpec, skip, limit, spec.collation)[Symbol.iterator]();
  return { plan, keys, stats, docs: sorted };
}

/** Plans and starts a read that never pauses (see {@link planPausingRead}). */
export function planRead(coll: Collection | undefined, spec: ReadSpec): PlannedRead | undefined {
  // Unsliced, a read's interrupt points check the deadline and hand up no pause.
  return planPausingRead(coll, spec, false) as PlannedRead | undefined;
}

/**
 * The page of an exact index plan's matches in the order of `keys`, sorted on stand-ins that
 * hold only the sort's fields (and `_id`), then only the page's documents decoded: decoding
 * each match whole from its BSON cost ten times reading the few fields a sort needs.
 * Undefined when the plan is not an exact scan of an index without arrays, or the sort reads
 * a path inside a field.
 */
function sortedByFields(
  coll: Collection,
  plan: Plan,
  keys: SortKey[],
  stats: ScanStats,
  skip: number,
  limit: number,
  collation?: Collation,
): Document[] | undefined {
  if (plan.kind !== "ixscan" || !plan.exact || plan.branches || plan.scan.index.multikey) return undefined;
  if (keys.some(([field]) => field.includes("."))) return undefined;
  const { table } = coll.docs;
  const { scan, ranges } = plan;
  const wanted = new Set(["_id", ...keys.map(([field]) => field)]);
  // Sort fields the index holds are taken from its entries' keys (missing ones index as null,
  // which sorts as missing does); the others are read from the documents.
  const fromKey = keys.map(([field]) => scan.index.fields.indexOf(field));
  const numberOf = new WeakMap<Document, number>();
  function* standIns(): Generator<Document> {
    for (const { n, key } of scanIndexNumbers(scan, ranges, stats)) {
      let standIn: Document;
      if (fromKey.every((f) => f >= 0)) {
        standIn = {};
        for (let k = 0; k < keys.length; k++) standIn[keys[k][0]] = key[fromKey[k]];
      } else {
        standIn = table.fields(n, wanted);
      }
      numberOf.set(standIn, n);
      yield standIn;
    }
  }
  const sorted = sortDocuments(
    sortedCount(counted(standIns(), stats, false)),
    Object.fromEntries(keys),
    skip,
    limit,
    collation,
  );
  return sorted.map((standIn) => table.decode(numberOf.get(standIn)!));
}

/** Runs a read lazily (see {@link planRead}). */
export function runRead(coll: Collection | undefined, spec: ReadSpec): Iterator<Document> {
  return planRead(coll, spec)?.docs ?? [][Symbol.iterator]();
}

/** The documents matching a filter, in no particular order; pausing when `sliced` (see {@link planPausingRead}). */
export function matching(
  coll: Collection,
  filter: unknown,
  collation: Collation | undefined,
  sliced: boolean,
): Iterable<Paused<Document>> {
  const plan = choosePlan(coll, filter, [], Infinity, collation);
  notePlan(coll, plan);
  return source(coll, plan, filter, { keysExamined: 0, docsExamined: 0 }, 0, sliced, collation).docs;
}

/** A finished count: the number, the plan that produced it and its work. */
export interface PlannedCount {
  n: number;
  plan: Plan | undefined;
  stats: ScanStats;
}

/**
 * A count under way (see {@link startCount}): `n` matches so far; `docs`, when set, the matches
 * still to count, up to `enough`.
 */
export interface Counting extends PlannedCount {
  docs: Iterator<Paused<Document>> | undefined;
  enough: number;
  skip: number;
  limit: number;
}

/** What a count reads: the filter and window, the collation, the hint. */
export interface CountSpec {
  filter: unknown;
  skip?: number;
  limit?: number;
  collation?: Collation;
  hint?: unknown;
  /** Explain: the read counts in no usage statistics. */
  untracked?: boolean;
}

/**
 * Starts a count of matches (skip/limit applied by {@link countDone}). An empty filter is
 * answered from the collection's size; a filter an index decides alone from the index (by
 * position, without reading entries, when nothing but the scanned ranges restricts it),
 * without fetching documents. Otherwise the matches are left in `docs` for the caller to count
 * (a `sliced` read's with pauses between them), up to `enough`: a count with a limit stops
 * reading once it has skip + limit matches.
 */
export function startCount(coll: Collection | undefined, spec: CountSpec, sliced: boolean): Counting {
  const skip = spec.skip ?? 0;
  const limit = spec.limit ?? 0;
  const { filter, collation } = spec;
  const counting: Counting = {
    n: 0,
    plan: undefined,
    stats: { keysExamined: 0, docsExamined: 0 },
    docs: undefined,
    enough: limit > 0 ? skip + limit : Infinity,
    skip,
    limit,
  };
  const hinted = coll && spec.hint !== undefined ? resolveHint(coll, spec.hint) : undefined;
  // A hinted count reads the hinted index even without a filter: a sparse one counts only what it holds.
  if (!coll) return counting;
  if (isEmptyFilter(filter) && !hinted) {
    counting.n = coll.docs.size;
    return counting;
  }
  const plan = hinted
    ? hintedPlan(coll, hinted, filter, [], false, collation)
    : choosePlan(coll, filter, [], Infinity, collation);
  counting.plan = plan;
  if (spec.untracked !== true) notePlan(coll, plan);
  const { stats } = counting;
  if (plan.kind === "ixscan" && plan.countable) {
    counting.n = countInRanges(plan.scan.index.entries, plan.ranges);
    stats.keysExamined += counting.n;
  } else if (plan.kind === "idrange" && plan.exact) {
    counting.n = plan.estimate;
    stats.keysExamined += counting.n;
  } else {
    const docs = plan.kind === "ixscan" && plan.exact && !plan.coverage
      ? counted(indexDocs(plan, stats), { keysExamined: 0, docsExamined: 0 }, sliced)
      : source(coll, plan, filter, stats, 0, sliced, collation).docs;
    counting.docs = docs[Symbol.iterator]();
  }
  return counting;
}

/** Counts one more match of a count under way; false once it has enough. */
export function countOne(counting: Counting): boolean {
  return ++counting.n < counting.enough;
}

/** The count's answer, its skip and limit applied. */
export function countDone(counting: Counting): PlannedCount {
  const n = Math.max(0, counting.n - counting.skip);
  return { n: counting.limit > 0 ? Math.min(n, counting.limit) : n, plan: counting.plan, stats: counting.stats };
}

/** Counts matches (see {@link startCount}) without pausing. */
export function planCount(coll: Collection | undefined, spec: CountSpec): PlannedCount {
  const counting = startCount(coll, spec, false);
  const docs = counting.docs;
  if (docs !== undefined) {
    for (let step = docs.next(); !step.done; step = docs.next()) {
      if (step.value !== PAUSE && !countOne(counting)) break;
    }
  }
  return countDone(counting);
}

/** Counts matches (see {@link planCount}). */
export function countMatching(coll: Collection | undefined, spec: CountSpec): number {
  return planCount(coll, spec).n;
}

/** Drains a read into an array (for writes, which must know their targets before changing them). */
export function collect<T>(it: Iterator<T>): T[] {
  const out: T[] = [];
  for (let step = it.next(); !step.done; step = it.next()) out.push(step.value);
  return out;
}
