import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { setTimeout as delay } from "node:timers/promises";
import { MongoClient } from "mongodb";
import { acquireLock } from "../../src/embedded/durability/lock.ts";
import { startEmbeddedEngine } from "../../src/embedded/mod.ts";
import { tempFolder } from "../fixtures/engine-model.ts";
import { fixtureCommand } from "../fixtures/engine-spawn.ts";

/**
 * The data-folder lock must be released by the kernel when its engine dies, whatever state
 * the dead process lingers in: a supervisor that SIGKILLs a process group and restarts at once
 * must not be refused because the killed engine is a zombie nobody has reaped yet.
 */

const ROOT = new URL("../..", import.meta.url).pathname;
// Zombies, process groups and /proc are what these tests are about.
const skip = process.platform === "linux" ? false : "needs Linux (process groups, zombies, /proc)";

/** Quotes `word` for sh. */
function shQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The engine fixture on `dir` as one sh command line. */
function engineCommand(dir: string): string {
  return fixtureCommand("engine-process.ts", [dir]).map(shQuote).join(" ");
}

/** State letter of process `pid` from /proc ("Z" for a zombie), or undefined once it is gone. */
async function processState(pid: number): Promise<string | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
  } catch {
    return undefined;
  }
}

/**
 * True once `pid` is a zombie whose threads have all exited. The main thread turns zombie
 * first; the descriptors (the lock among them) close with the last thread, so waiting only for
 * "Z" would restart while a multi-threaded runtime is still tearing down.
 */
async function deadButUnreaped(pid: number): Promise<boolean> {
  if ((await processState(pid)) !== "Z") return false;
  return (await readdir(`/proc/${pid}/task`)).length === 1;
}

/** Pid of the first child of process `pid`. */
async function firstChild(pid: number): Promise<number> {
  const children = await readFile(`/proc/${pid}/task/${pid}/children`, "utf8");
  return Number(children.trim().split(" ")[0]);
}

/** Resolves with the stdout lines of `child` as they come, until `done` says enough. */
function readLines(child: ChildProcess, done: (lines: string[]) => boolean): Promise<string[]> {
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  return new Promise((resolve, reject) => {
    let text = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      text += chunk;
      const lines = text.split("\n").slice(0, -1);
      if (done(lines)) resolve(lines);
    });
    child.once("close", (code, signal) => reject(new Error(`exited (${code ?? signal}) early: ${stderr}`)));
  });
}

/** Inserts `count` documents into app.items, each acknowledged, and returns their ids. */
async function writeAcknowledged(uri: string, first: number, count: number): Promise<number[]> {
  const client = new MongoClient(uri, { retryWrites: false, serverSelectionTimeoutMS: 10_000 });
  try {
    const ids: number[] = [];
    for (let id = first; id < first + count; id++) {
      await client.db("app").collection<{ _id: number }>("items").insertOne({ _id: id });
      ids.push(id);
    }
    return ids;
  } finally {
    await client.close();
  }
}

/** Starts an engine in this process on `dir` at once; it must get the lock and hold `ids`. */
async function restartAndCheck(dir: string, ids: number[]): Promise<void> {
  const engine = await startEmbeddedEngine({ dataDir: dir });
  const client = new MongoClient(engine.uri);
  try {
    const stored = await client.db("app").collection<{ _id: number }>("items").find().sort({ _id: 1 }).toArray();
    assert.deepEqual(stored.map((doc) => doc._id), ids, "every acknowledged write survives");
  } finally {
    await client.close();
    await engine.close();
  }
}

describe("data-folder lock", { skip }, () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  const children: ChildProcess[] = [];
  before(async () => ({ dir, cleanup } = await tempFolder("lock")));
  after(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await cleanup();
  });

  let counter = 0;
  const fresh = () => join(dir, `case-${++counter}`);

  test("a killed engine still lingering as a zombie does not hold the folder", { timeout: 60_000 }, async () => {
    const folder = fresh();
    // The engine runs in a process group of its own (setsid) under a parent that never reaps
    // it (sh replaced by sleep), so once killed it stays a zombie for as long as we need.
    const parent = spawn("sh", ["-c", `setsid ${engineCommand(folder)} & echo "pid $!"; exec sleep 600`], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(parent);
    const lines = await readLines(parent, (seen) => seen.length >= 2);
    const pid = Number(lines.find((line) => line.startsWith("pid "))!.slice(4));
    const uri = lines.find((line) => line.startsWith("mongodb://"))!;
    const ids = await writeAcknowledged(uri, 1, 20);

    process.kill(-pid, "SIGKILL");
    while (!(await deadButUnreaped(pid))) await delay(5);
    await restartAndCheck(folder, ids);
    assert.equal(await processState(pid), "Z", "the old engine was a zombie throughout the restart");
    parent.kill("SIGKILL");
  });

  test(
    "restarts at once after a wrapper's whole process group is SIGKILLed, five times",
    { timeout: 120_000 },
    async (t) => {
      const folder = fresh();
      const acknowledged: number[] = [];
      let zombies = 0;
      for (let round = 0; round < 5; round++) {
        // Like `npm start`: a shell that runs the engine as its child, in a group of their own.
        const wrapper = spawn("sh", ["-c", `${engineCommand(folder)}; exit $?`], {
          cwd: ROOT,
          detached: true,
          stdio: ["ignore", "pipe", "pipe"],
        });
        children.push(wrapper);
        const closed = new Promise((resolve) => wrapper.once("close", resolve));
        const [uri] = await readLines(wrapper, (seen) => seen.length >= 1);
        const enginePid = await firstChild(wrapper.pid!);
        acknowledged.push(...(await writeAcknowledged(uri, acknowledged.length + 1, 10)));

        process.kill(-wrapper.pid!, "SIGKILL");
        // Every descriptor of the group is closed (the pipes report it); the engine may not be reaped.
        await closed;
        if ((await processState(enginePid)) === "Z") zombies++;
        await restartAndCheck(folder, acknowledged);
      }
      t.diagnostic(`the killed engine was still a zombie at ${zombies} of 5 restarts`);
    },
  );

  test("a second live engine is refused with the owner's pid, and the first keeps the folder", async () => {
    const folder = fresh();
    const engine = await startEmbeddedEngine({ dataDir: folder });
    try {
      await assert.rejects(
        startEmbeddedEngine({ dataDir: folder }),
        new RegExp(
          `^Error: Data directory .+ is in use by another engine \\(pid ${process.pid}\\)\\. Stop it or choose another DATA_DIR\\.$`,
        ),
      );
      assert.deepEqual(await writeAcknowledged(engine.uri, 1, 1), [1]);
    } finally {
      await engine.close();
    }
  });

  test("where the lock is a socket file, one left by a crash is replaced and a live one refuses", async () => {
    const folder = fresh();
    await startEmbeddedEngine({ dataDir: folder }).then((engine) => engine.close());
    // A socket file nobody listens on, as a killed engine leaves it.
    await writeFile(join(folder, "engine.sock"), "");
    const release = await acquireLock(folder, "darwin");
    await assert.rejects(acquireLock(folder, "darwin"), /is in use by another engine \(pid \d+\)/);
    await release();
    const again = await acquireLock(folder, "darwin");
    await again();
  });
});
