import { createHash, randomBytes } from "node:crypto";
import { connect, createServer, type Server } from "node:net";
import { link, readFile, realpath, rename, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { errorCode, removeIfExists } from "./files.ts";

/**
 * The data-folder lock. Two engines replaying and appending to the same journal would corrupt
 * it, so the second one must be refused.
 *
 * The lock is a listening local socket whose name is derived from the folder's identity
 * (device, inode and real path). Only one socket can be bound to a name, binding is atomic, and the
 * kernel closes a process's sockets the moment it dies, before it lingers as a zombie waiting
 * to be reaped. So a crashed engine never holds the folder, and two engines starting at once
 * on a crashed folder cannot both win: there is no stale state to judge and take over.
 *
 * - Linux: an abstract unix socket (no file; it vanishes with its last descriptor).
 * - Windows: a named pipe, which behaves the same way.
 * - Elsewhere (macOS, BSD): a socket file `engine.sock` in the folder. A file left by a crash
 *   is recognised because nobody accepts connections on it, and is replaced; two engines doing
 *   that at the same instant could both succeed, which the kernel-named sockets rule out.
 *
 * `engine.lock` holds the owner's pid, for the refusal message only; it decides nothing.
 *
 * The name also hashes a random key kept in the folder (`engine.lock-key`, 0600): anyone may
 * learn a folder's device, inode and path, and so could bind its name first and keep every
 * engine out of it; only the folder's owner can read the key.
 */

const PID_FILE = "engine.lock";
const KEY_FILE = "engine.lock-key";
const SOCKET_FILE = "engine.sock";

// Node binds an abstract name with the whole 108-byte sun_path (padded with NULs), Deno with
// the name's own length; a name that fills sun_path exactly is the same socket for both.
const ABSTRACT_NAME_LENGTH = 107;

/** Releases a lock taken by `acquireLock`. */
export type ReleaseLock = () => Promise<void>;

/**
 * Takes the lock on `dir`, or throws "Data directory /x is in use by another engine (pid N).
 * Stop it or choose another DATA_DIR." `platform` picks the mechanism (tests use it to
 * exercise the socket-file one on Linux).
 */
export async function acquireLock(dir: string, platform: string = process.platform): Promise<ReleaseLock> {
  // The real path, so that a folder reached through a symlink is still the same folder.
  const folder = await realpath(dir);
  const address = await lockAddress(folder, platform);
  const server = (await listenExclusive(address)) ?? (await takeOverSocketFile(address, platform));
  if (!server) throw await inUse(folder);
  const pidPath = join(folder, PID_FILE);
  await writePid(pidPath);
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    // Only remove the pid file if it is still ours: a new owner may have written it already.
    if ((await readOwner(pidPath)) === process.pid) await removeIfExists(pidPath);
  };
}

/** The socket name that stands for `folder` on `platform`. */
async function lockAddress(folder: string, platform: string): Promise<string> {
  if (platform !== "linux" && platform !== "win32") return join(folder, SOCKET_FILE);
  const { dev, ino } = await stat(folder, { bigint: true });
  // The real path too: a deleted folder's inode number is reused by the next one made, and a
  // process still holding the old folder's lock would then hold the new folder's as well.
  const key = await lockKey(folder);
  const id = createHash("sha256").update(`${dev}:${ino}:${folder}:${key}`).digest("hex");
  if (platform === "win32") return `\\\\?\\pipe\\mongorest-engine-${id}`;
  return `\0mongorest-engine-lock-${id}`.padEnd(ABSTRACT_NAME_LENGTH + 1, "-");
}

/**
 * The folder's lock key: read, or made once. Written aside and linked into place, so it
 * appears whole or not at all, and of two engines making it at once both read the winner's.
 */
async function lockKey(folder: string): Promise<string> {
  const path = join(folder, KEY_FILE);
  const draft = `${path}.${process.pid}.tmp`;
  try {
    await writeFile(draft, randomBytes(32).toString("hex"), { mode: 0o600 });
    await link(draft, path);
  } catch (error) {
    if (errorCode(error) !== "EEXIST") throw error;
  } finally {
    await removeIfExists(draft);
  }
  return (await readFile(path, "utf8")).trim();
}

/** Binds `address`; undefined when someone else holds it. */
function listenExclusive(address: string): Promise<Server | undefined> {
  return new Promise((resolve, reject) => {
    // Nobody needs to talk to the lock: a connection is closed at once.
    const server = createServer((socket) => socket.destroy());
    server.once("error", (error) => {
      if (errorCode(error) === "EADDRINUSE") resolve(undefined);
      else reject(error);
    });
    server.listen({ path: address, exclusive: true }, () => {
      // The lock must not keep a process alive that is otherwise done.
      server.unref();
      resolve(server);
    });
  });
}

// A socket file outlives its process; one that refuses connections was left by a crash.
async function takeOverSocketFile(address: string, platform: string): Promise<Server | undefined> {
  if (platform === "linux" || platform === "win32") return undefined;
  if (await accepts(address)) return undefined;
  await removeIfExists(address);
  return await listenExclusive(address);
}

function accepts(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ path });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", (error) => resolve(errorCode(error) !== "ECONNREFUSED" && errorCode(error) !== "ENOENT"));
  });
}

async function inUse(folder: string): Promise<Error> {
  const owner = await readOwner(join(folder, PID_FILE));
  const who = owner === undefined ? "another engine" : `another engine (pid ${owner})`;
  return new Error(`Data directory ${folder} is in use by ${who}. Stop it or choose another DATA_DIR.`);
}

// Written aside and renamed into place, so a reader never sees a half-written pid.
async function writePid(pidPath: string): Promise<void> {
  const draft = `${pidPath}.${process.pid}.tmp`;
  await writeFile(draft, `${process.pid}\n`, { mode: 0o600 });
  await rename(draft, pidPath);
}

async function readOwner(pidPath: string): Promise<number | undefined> {
  try {
    const pid = Number.parseInt(await readFile(pidPath, "utf8"), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
}
