import type { Document } from "bson";
import type { Probe } from "../store/blocks.ts";
import type { OrderedIndex } from "../store/ordered-index.ts";
import { compareValues, type ValueKey } from "../store/values.ts";
import { endProbe, type Entry, type ScanBranch, scanEntries, type ScanStats, startProbe } from "./index-scan.ts";

/**
 * Reads the branches of an `$or` from one index and merges them in index order (or reverse),
 * each document once: MongoDB's SORT_MERGE of one index scan per branch. A branch's scan starts
 * (seeks) only once the merge reaches its first range: until then the start of that range says
 * it has nothing to give. A keyset page (the boundary's own branch last, then wider and wider
 * ones) thus starts its last branch and only the next ones it reads into, and reads about its
 * own size however deep it lies.
 */
export function* mergeScans(
  index: OrderedIndex,
  branches: ScanBranch[],
  reverse: boolean,
  stats: ScanStats,
): Generator<Document> {
  const seen = new Set<ValueKey>();
  const { entries } = index;
  const scans: (Generator<Entry> | undefined)[] = branches.map(() => undefined);
  const heads: IteratorResult<Entry>[] = branches.map(() => ({ done: true, value: undefined }));
  // Negative (forward) or not (reverse) while an entry is read before anything of the branch's first range.
  const firsts = branches.map((b) => {
    const first = reverse ? b.ranges[b.ranges.length - 1] : b.ranges[0];
    return first && (reverse ? endProbe(first, entries) : startProbe(first, entries));
  });
  const dirs = entries.dirs;
  // Plain loops and module functions, no closures: a keyset page runs this on every request.
  for (;;) {
    let best = -1;
    for (let i = 0; i < heads.length; i++) {
      const head = heads[i];
      if (head.done) continue;
      if (best < 0 || entryBefore(head.value, (heads[best] as IteratorYieldResult<Entry>).value, dirs, reverse)) {
        best = i;
      }
    }
    const unstarted = scans.lastIndexOf(undefined);
    if (unstarted < 0 && best < 0) return;
    if (best < 0) {
      // Nothing to compare with yet: start the last branch left (a keyset filter's narrowest).
      scans[unstarted] = branchScan(index, branches[unstarted], reverse, stats, seen);
      heads[unstarted] = scans[unstarted]!.next();
      continue;
    }
    const head = (heads[best] as IteratorYieldResult<Entry>).value;
    let started = false;
    for (let i = 0; i < scans.length; i++) {
      if (scans[i] !== undefined || waiting(firsts[i], head, reverse)) continue;
      scans[i] = branchScan(index, branches[i], reverse, stats, seen);
      heads[i] = scans[i]!.next();
      started = true;
    }
    if (started) continue;
    yield head.doc!;
    heads[best] = scans[best]!.next();
  }
}

/** The scan of one branch of an `$or`, sharing `seen` with the others. */
function branchScan(
  index: OrderedIndex,
  branch: ScanBranch,
  reverse: boolean,
  stats: ScanStats,
  seen: Set<ValueKey>,
): Generator<Entry> {
  return scanEntries({ index, bounds: branch.bounds, reverse }, branch.ranges, stats, seen);
}

/** True while `head` lies before the first range of a branch (whose start `first` probes): the branch has nothing yet. */
function waiting(first: Probe | undefined, head: Entry, reverse: boolean): boolean {
  if (!first) return false;
  const c = first(head.key, 0, head.n);
  return reverse ? c >= 0 : c < 0;
}

/** True when entry `a` comes before `b` in the order of a scan (keys in the index's directions, then `_id`). */
function entryBefore(a: Entry, b: Entry, dirs: readonly (1 | -1)[], reverse: boolean): boolean {
  for (let f = 0; f < dirs.length; f++) {
    const c = compareValues(a.key[f], b.key[f]) * dirs[f];
    if (c !== 0) return reverse ? c > 0 : c < 0;
  }
  const c = compareValues(a.doc!._id, b.doc!._id);
  return reverse ? c > 0 : c < 0;
}
