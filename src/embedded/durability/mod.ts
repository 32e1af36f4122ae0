import { mkdir, realpath, stat } from "node:fs/promises";
import process from "node:process";
import { dirname, resolve } from "node:path";
import type { ChangeSink, RecoveredChange } from "../changes.ts";
import { fsyncDir } from "./files.ts";
import { acquireLock } from "./lock.ts";
import type { SnapshotLoaded } from "./recovery.ts";
import { type DurableStoreOptions, JournaledStore, type StoreStats } from "./store.ts";

export type { SnapshotLoaded };

/**
 * Disk durability for the embedded engine.
 *
 * Data folder layout:
 *   engine.lock                    pid of the engine using the folder (informational: the lock
 *                                  itself is a socket the kernel releases, see lock.ts)
 *   engine.sock                    that socket, on platforms without abstract sockets or pipes
 *   journal-<gen>.log              changes since snapshot <gen> (or since the start), in order
 *   snapshot-<gen>.bson            whole state when journal <gen> was started (fuzzy, see below)
 *   snapshot-<gen>.bson.tmp        a snapshot being written; ignored and removed at startup
 *
 * Journal and snapshot files are runs of records `[u32 length][u32 crc32][payload]`, payload
 * = BSON-encoded Changes (a journal record holds one append() call, so a write survives whole
 * or not at all); a snapshot adds a header record and a trailer record with the change count.
 * Changes are post-images (a put carries the whole document, a delete the id), so replaying
 * any suffix of history over a state that already contains part of it converges to the same
 * end state.
 *
 * Compaction to generation N, and why a crash at each step is recoverable:
 *   1. journal-N is created (dir fsync'ed) and new appends go there; appends made before are
 *      already fsync'ed in journal-(N-1). Crash: recovery replays snapshot-S + journals S..N.
 *   2. dump() is written in chunks to snapshot-N.bson.tmp while writes continue into
 *      journal-N; then fsync. Crash: the .tmp file is ignored (and removed), as in 1.
 *   3. journal-N is synced, so every change the dump could have seen is durable there too;
 *      then the .tmp is renamed to snapshot-N.bson and the dir fsync'ed: the commit point.
 *      Everything before journal-N is in the snapshot and everything after is in journal-N,
 *      so recovery = snapshot-N + journal-N (+ later ones). Crash before the rename: as in 1.
 *   4. Journals and snapshots older than N are deleted. Crash: recovery deletes them again.
 *
 * close() does not abandon a compaction: appends are refused from then on, the running one is
 * finished (or one the journal's size still calls for is run), then the files are closed. A
 * crash meanwhile is the crash of steps 1-4 above.
 *
 * What the engine must provide (its Catalog does): `apply` is idempotent and does not enforce
 * unique indexes while replaying (a fuzzy snapshot plus journal passes through transient
 * states); a change is in the in-memory state no later than right after its append()
 * resolves (the engine applies before appending); and dump()'s iterator tolerates the state
 * changing between chunks, since it is consumed across event-loop turns.
 *
 * A change whose append() rejects is taken back out of the in-memory state by the engine, so
 * readers do not go on seeing what recovery would not rebuild, and the journal cuts whatever
 * part of it reached the file back off (journal.ts), so recovery does not rebuild it either.
 * A snapshot may have dumped it meanwhile, but cannot commit: it commits only if no append
 * failed while it was taken.
 *
 * A full disk is recovered from without a restart: the failed append is cut off, reported as
 * OutOfDiskSpace (space.ts), and the next append tries again. Any other write failure, or a
 * cut that fails, makes the journal refuse every later append until a restart.
 */

/** A ChangeSink that keeps the engine's state on disk and can rebuild it. */
export interface DurableStore extends ChangeSink {
  /**
   * Feeds every change recovered from snapshot + journal, in order; `afterSnapshot` runs
   * between the two. The engine calls it once before serving.
   */
  recover(apply: (change: RecoveredChange) => void, afterSnapshot?: (loaded: SnapshotLoaded) => void): Promise<void>;
}

/** The store `openDurableStore` returns: a DurableStore that can also be compacted on demand. */
export interface CompactableStore extends DurableStore {
  /** Snapshots the current state and drops the journals it covers; resolves once committed. */
  compact(): Promise<void>;
  /** Resolves once no compaction is running, including one the journal size started. */
  idle(): Promise<void>;
  /** Journal generation and sizes, for diagnostics and tests. */
  stats(): StoreStats;
}

export type { DurableStoreOptions, StoreStats } from "./store.ts";

/**
 * Takes the data-folder lock (creating the folder if needed) and returns the store. Throws
 * "Data directory /x is in use by another engine (pid 123). Stop it or choose another
 * DATA_DIR." when another live engine holds it. `dump` yields the engine's whole current
 * state as Changes (createCollection, createIndex, put, ...) for snapshots.
 */
export async function openDurableStore(
  dataDir: string,
  dump: () => Iterable<RecoveredChange>,
  options: DurableStoreOptions = {},
): Promise<CompactableStore> {
  const dir = resolve(dataDir);
  await refusePseudoFileSystem(dir);
  await createDurably(dir);
  await refuseOpenFolder(dir);
  const releaseLock = await acquireLock(dir);
  return new JournaledStore(dir, dump, releaseLock, options);
}

/**
 * Refuses a data folder other users may enter (any group or other permission bit), as
 * PostgreSQL does: they could read every record, hidden fields included, or the lock. The
 * engine creates its folder 0700; an older or hand-made one is `chmod 700`ed once, or allowed
 * with MONGOREST_ALLOW_OPEN_DATA_DIR=1 (a folder shared on purpose, such as a group's).
 */
async function refuseOpenFolder(dir: string): Promise<void> {
  const mode = (await stat(dir)).mode & 0o777;
  if ((mode & 0o077) === 0 || process.env.MONGOREST_ALLOW_OPEN_DATA_DIR === "1") return;
  throw new Error(
    `Data directory ${dir} is open to other users (mode ${
      mode.toString(8)
    }): run chmod 700 ${dir}, or set MONGOREST_ALLOW_OPEN_DATA_DIR=1 to allow it.`,
  );
}

/** File systems the kernel makes up: nothing written there is kept (and mkdir there can spin forever). */
const PSEUDO = ["/proc", "/sys", "/dev"];

/** Refuses a data folder inside /proc, /sys or /dev, by the real path of its nearest existing part. */
async function refusePseudoFileSystem(dir: string): Promise<void> {
  let existing = dir;
  for (;;) {
    try {
      existing = await realpath(existing);
      break;
    } catch {
      if (dirname(existing) === existing) return;
      existing = dirname(existing);
    }
  }
  const inside = PSEUDO.find((root) => existing === root || existing.startsWith(`${root}/`));
  if (inside !== undefined) {
    throw new Error(
      `Data directory ${dir} is inside ${inside}, a pseudo file system that keeps no data; choose another DATA_DIR.`,
    );
  }
}

/** Why a folder cannot be made, in words, for the start-up line. */
const CANNOT_CREATE: Record<string, string> = {
  EROFS: "the file system is read-only",
  EACCES: "no permission to create it there",
  EPERM: "no permission to create it there",
  ENOTDIR: "a part of the path is a file, not a folder",
  ENOSPC: "the disk is full",
  EEXIST: "a file of that name is in the way",
};

// A folder created just now is only durable once the entry in its parent is.
async function createDurably(dir: string): Promise<void> {
  // 0700: only the engine's user may read the data (an existing folder keeps its mode).
  let first: string | undefined;
  try {
    first = await mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    const code = (error as { code?: string }).code ?? "error";
    const why = CANNOT_CREATE[code] ?? (error as Error).message;
    throw new Error(`Data directory ${dir} cannot be created (${code}: ${why}); choose another DATA_DIR.`, {
      cause: error,
    });
  }
  if (first === undefined) return;
  for (let parent = dirname(first);; parent = dirname(parent)) {
    await fsyncDir(parent);
    if (parent === dirname(dir) || parent === dirname(parent)) break;
  }
}
