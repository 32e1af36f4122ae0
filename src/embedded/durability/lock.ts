import { link, readFile, realpath, writeFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { errorCode, removeIfExists } from "./files.ts";

/**
 * The data-folder lock: a file holding the owner's pid. Two engines replaying and appending
 * to the same journal would corrupt it, so the second one must be refused.
 */

const LOCK_NAME = "engine.lock";

// Folders locked by this process. A lock file naming our own pid is only live if it is in
// here; otherwise it was left by an earlier process that had the same pid (pid 1 in a
// container restarted after a crash, typically).
const heldHere = new Set<string>();

// Numbers drafts, so two opens in this process never share one.
let drafts = 0;

/** Releases a lock taken by `acquireLock`. */
export type ReleaseLock = () => Promise<void>;

/**
 * Takes the lock on `dir`, or throws a clear error naming the engine that holds it. A lock
 * left by a process that no longer exists is taken over.
 */
export async function acquireLock(dir: string): Promise<ReleaseLock> {
  // The real path, so that a folder reached through a symlink is still the same folder.
  const folder = await realpath(dir);
  const lockPath = join(folder, LOCK_NAME);
  // A few attempts, since another engine may be taking over the same stale lock right now.
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await tryCreate(lockPath)) {
      heldHere.add(folder);
      return () => release(folder, lockPath);
    }
    const owner = await readOwner(lockPath);
    if (owner !== undefined && isLive(owner, folder)) {
      throw new Error(
        `Data directory ${folder} is in use by another engine (pid ${owner}). ` +
          `Stop it or choose another DATA_DIR.`,
      );
    }
    await removeIfExists(lockPath);
  }
  throw new Error(`Could not lock data directory ${folder}: the lock file keeps changing.`);
}

// Writes the pid to a private file, then hard-links it into place: the link either creates
// the lock with its content already there or fails, so nobody ever sees an empty lock.
async function tryCreate(lockPath: string): Promise<boolean> {
  const draft = `${lockPath}.${process.pid}.${++drafts}.tmp`;
  await writeFile(draft, `${process.pid}\n`);
  try {
    await link(draft, lockPath);
    return true;
  } catch (error) {
    if (errorCode(error) === "EEXIST") return false;
    throw error;
  } finally {
    await removeIfExists(draft);
  }
}

async function readOwner(lockPath: string): Promise<number | undefined> {
  try {
    const pid = Number.parseInt(await readFile(lockPath, "utf8"), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
}

function isLive(pid: number, folder: string): boolean {
  if (pid === process.pid) return heldHere.has(folder);
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else; it still counts as live.
    return errorCode(error) === "EPERM";
  }
}

async function release(folder: string, lockPath: string): Promise<void> {
  if (!heldHere.delete(folder)) return;
  // Only remove the file if it is still ours: someone may have taken it over meanwhile.
  if ((await readOwner(lockPath)) === process.pid) await removeIfExists(lockPath);
}
