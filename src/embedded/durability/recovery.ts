import { open, stat } from "node:fs/promises";
import type { RecoveredChange } from "../changes.ts";
import { replayChanges } from "./codec.ts";
import { fsyncDir, journalPath, listFolder, removeIfExists, removeOlderThan } from "./files.ts";
import { intactRecordAfter, scanRecords } from "./records.ts";
import { readSnapshot } from "./snapshot.ts";

/** What recovery found, for the store to carry on from. */
export interface RecoveredFolder {
  /** Journal to keep appending to: the newest one (its torn tail already cut off). */
  journalGen: number;
  /** Bytes of journal replayed on top of the snapshot: what a compaction would fold in. */
  journalBytes: number;
  /** Size of the snapshot loaded; 0 if there was none. */
  snapshotBytes: number;
}

/** How much recovery has read, and has left to read, once the snapshot is in. */
export interface SnapshotLoaded {
  /** Size of the snapshot loaded; 0 if there was none. */
  snapshotBytes: number;
  /** Total size of the journals about to be replayed on top of it. */
  journalBytes: number;
}

/**
 * Rebuilds the state of `dir` through `apply`: the newest snapshot, then every journal from
 * that generation on, in order. `afterSnapshot` runs between the two. Also finishes what a crash interrupted: removes unfinished
 * snapshots and files an interrupted compaction left behind, and cuts a torn record off the
 * newest journal (it was never fsync'ed, so never acknowledged).
 */
export async function recoverFolder(
  dir: string,
  apply: (change: RecoveredChange) => void,
  warn: (message: string) => void,
  afterSnapshot?: (loaded: SnapshotLoaded) => void,
): Promise<RecoveredFolder> {
  const listing = await listFolder(dir);
  for (const temp of listing.temps) await removeIfExists(temp);
  if (listing.temps.length > 0) await fsyncDir(dir);

  const base = listing.snapshots.at(-1) ?? 0;
  const snapshotBytes = base > 0 ? await readSnapshot(dir, base, apply) : 0;
  await removeOlderThan(dir, base);

  const journals = listing.journals.filter((gen) => gen >= base);
  checkNoGap(dir, journals, Math.max(base, 1));
  if (afterSnapshot !== undefined) {
    let pending = 0;
    for (const gen of journals) pending += (await stat(journalPath(dir, gen))).size;
    afterSnapshot({ snapshotBytes, journalBytes: pending });
  }
  let journalBytes = 0;
  for (const [index, gen] of journals.entries()) {
    journalBytes += await replayJournal(dir, gen, index === journals.length - 1, apply, warn);
  }
  return { journalGen: journals.at(-1) ?? Math.max(base, 1), journalBytes, snapshotBytes };
}

// Journals are created one generation after another and the snapshot's own journal is created
// before the snapshot, so a gap means files were lost or removed by hand: starting anyway
// would silently drop acknowledged writes.
function checkNoGap(dir: string, journals: number[], first: number): void {
  journals.forEach((gen, index) => {
    if (gen !== first + index) {
      throw new Error(
        `Journal ${journalPath(dir, first + index)} is missing; the data directory is incomplete.`,
      );
    }
  });
}

async function replayJournal(
  dir: string,
  gen: number,
  isNewest: boolean,
  apply: (change: RecoveredChange) => void,
  warn: (message: string) => void,
): Promise<number> {
  const path = journalPath(dir, gen);
  const scan = await scanRecords(path, (payload) => {
    replayChanges(payload, apply);
  });
  if (scan.validBytes === scan.fileBytes) return scan.fileBytes;
  const lost = scan.fileBytes - scan.validBytes;
  if (!isNewest) {
    // Older journals were fully fsync'ed before the next one was created: this is damage,
    // not a write cut short by a crash.
    throw new Error(
      `Journal ${path} is damaged at byte ${scan.validBytes} (${lost} bytes unreadable) ` +
        `and newer journals follow it; the engine will not start with a hole in its history.`,
    );
  }
  const intact = await intactRecordAfter(path, scan.validBytes);
  if (intact !== undefined) {
    // A crash leaves only its last write incomplete: intact records after the damage were
    // written after it was acknowledged, so dropping them as a torn tail would lose data.
    throw new Error(
      `Journal ${path} is damaged at byte ${scan.validBytes}, and an intact record follows at byte ${intact}: ` +
        `this is damage inside acknowledged writes, not a write cut short by a crash. The engine will not start ` +
        `and drop them; restore the data folder from a backup.`,
    );
  }
  warn(
    `Discarded ${lost} bytes of an incomplete record at the end of ${path} ` +
      `(a write cut short by a crash, never acknowledged).`,
  );
  await truncateDurably(path, scan.validBytes);
  return scan.validBytes;
}

async function truncateDurably(path: string, length: number): Promise<void> {
  const handle = await open(path, "r+");
  try {
    await handle.truncate(length);
    await handle.sync();
  } finally {
    await handle.close();
  }
}
