import { open, readdir, unlink } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";

/**
 * Names and housekeeping of the files in a data folder.
 *
 * Every journal and snapshot carries a generation number. Snapshot N holds the state as of the
 * moment journal N was started (fuzzily: writes that landed in journal N meanwhile may or may
 * not be in it), so recovery = newest snapshot S, then journals S, S+1, ... in order.
 */

const GEN_WIDTH = 10;
const JOURNAL_RE = /^journal-(\d+)\.log$/;
const SNAPSHOT_RE = /^snapshot-(\d+)\.bson$/;
const SNAPSHOT_TEMP_RE = /^snapshot-(\d+)\.bson\.tmp$/;

function pad(gen: number): string {
  return String(gen).padStart(GEN_WIDTH, "0");
}

/** Path of journal `gen` in `dir`. */
export function journalPath(dir: string, gen: number): string {
  return join(dir, `journal-${pad(gen)}.log`);
}

/** Path a snapshot is written under until it is complete; never read, removed at startup. */
export function snapshotTempPath(dir: string, gen: number): string {
  return `${snapshotPath(dir, gen)}.tmp`;
}

/** Path of snapshot `gen` in `dir` (its final, committed name). */
export function snapshotPath(dir: string, gen: number): string {
  return join(dir, `snapshot-${pad(gen)}.bson`);
}

/** What a data folder holds, generations sorted ascending. */
export interface FolderListing {
  journals: number[];
  snapshots: number[];
  temps: string[];
}

/** Lists the journals, snapshots and unfinished snapshots of `dir`. */
export async function listFolder(dir: string): Promise<FolderListing> {
  const listing: FolderListing = { journals: [], snapshots: [], temps: [] };
  for (const name of await readdir(dir)) {
    const journal = JOURNAL_RE.exec(name);
    const snapshot = SNAPSHOT_RE.exec(name);
    if (journal) listing.journals.push(Number(journal[1]));
    else if (snapshot) listing.snapshots.push(Number(snapshot[1]));
    else if (SNAPSHOT_TEMP_RE.test(name)) listing.temps.push(join(dir, name));
  }
  listing.journals.sort((a, b) => a - b);
  listing.snapshots.sort((a, b) => a - b);
  return listing;
}

/**
 * Makes creations, renames and deletions inside `dir` durable: without it a crash can lose a
 * freshly created journal or undo the rename that commits a snapshot.
 */
export async function fsyncDir(dir: string): Promise<void> {
  // Windows cannot open a directory for syncing; its metadata journaling covers this case.
  if (process.platform === "win32") return;
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Deletes `path`; a file that is already gone is fine. */
export async function removeIfExists(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    if (errorCode(error) !== "ENOENT") throw error;
  }
}

/** The `code` of a Node system error, if any. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error === "object" && error !== null && "code" in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === "string" ? code : undefined;
  }
  return undefined;
}

/**
 * Removes journals and snapshots older than `gen`: once snapshot `gen` is committed they
 * are redundant. Runs after the commit, and again at startup in case a crash interrupted it.
 */
export async function removeOlderThan(dir: string, gen: number): Promise<void> {
  const listing = await listFolder(dir);
  const stale = [
    ...listing.journals.filter((g) => g < gen).map((g) => journalPath(dir, g)),
    ...listing.snapshots.filter((g) => g < gen).map((g) => snapshotPath(dir, g)),
  ];
  if (stale.length === 0) return;
  for (const path of stale) await removeIfExists(path);
  await fsyncDir(dir);
}
