/** The seeder's arguments: every mistake is one line and exit 2, before anything is opened. */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { parseSeedArgs, SEED_HELP, SEED_USAGE } from "../../scripts/seed-args.ts";
import { progressLines } from "../../scripts/seed-progress.ts";
import { startEmbeddedEngine } from "../../src/embedded/mod.ts";

test("reads counts and seed, with defaults, as `--name value` or `--name=value`", () => {
  assert.deepEqual(parseSeedArgs([]), { counts: { users: 1000, postsPerUser: 2, commentsPerPost: 2 }, seed: 1 });
  assert.deepEqual(parseSeedArgs(["--users", "10", "--posts-per-user=0", "--seed", "7"]), {
    counts: { users: 10, postsPerUser: 0, commentsPerPost: 2 },
    seed: 7,
  });
});

test("each mistake is a TypeError of one line saying what was wrong and what is allowed", () => {
  const cases: [string[], string][] = [
    [["--users"], "--users needs a value"],
    [["--users", "--seed", "2"], "--users needs a value"],
    [["--users", "-5"], '--users must be a whole number, got "-5"'],
    [["--users", "5", "--bogus"], 'unknown option "--bogus"'],
    [["7"], 'unexpected argument "7"'],
    [["--users", "abc"], '--users must be a whole number, got "abc"'],
    [["--seed", "x"], '--seed must be a whole number, got "x"'],
    [["--users="], '--users must be a whole number, got ""'],
  ];
  for (const [argv, reason] of cases) {
    assert.throws(() => parseSeedArgs(argv), (error: Error) => {
      assert.ok(error instanceof TypeError);
      assert.equal(error.message, `${reason}; ${SEED_USAGE}`);
      return true;
    }, argv.join(" "));
  }
});

test("the command prints one line and exits 2 before it opens the engine", async () => {
  const dataDir = join(mkdtempSync(join(tmpdir(), "seed-args-")), "data");
  // Under `deno test` process.execPath is deno, which runs the script as `deno run` does.
  const runtime = "Deno" in globalThis ? ["run", "-A"] : ["--import", "tsx"];
  for (const args of [["--users", "5", "--bogus"], ["--seed", "x"]]) {
    const child = spawn(process.execPath, [...runtime, "scripts/seed.ts", ...args], {
      env: { ...process.env, DATA_DIR: dataDir, MONGODB_URI: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    assert.equal(code, 2, stderr);
    assert.match(stderr, /^seed: [^\n]+; usage: npm run seed -- [^\n]+\n$/);
    assert.equal(existsSync(dataDir), false, "the data folder was not created");
  }
});

/** Runs the seeder as `npm run seed` would, with `env` added; its exit code and output. */
async function runSeed(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const runtime = "Deno" in globalThis ? ["run", "-A"] : ["--import", "tsx"];
  const child = spawn(process.execPath, [...runtime, "scripts/seed.ts", ...args], {
    env: { ...process.env, MONGODB_URI: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  return { code, stdout, stderr };
}

test("--help prints every option with its default and exits 0, opening nothing", async () => {
  const dataDir = join(mkdtempSync(join(tmpdir(), "seed-help-")), "data");
  const { code, stdout } = await runSeed(["--users", "5", "--help"], { DATA_DIR: dataDir });
  assert.equal(code, 0);
  assert.equal(stdout, `${SEED_HELP}\n`);
  assert.match(stdout, /--users N +users to add \(default 1000\)/);
  assert.equal(existsSync(dataDir), false);
});

test("a data folder another engine holds is one line and exit 1, not a stack", async () => {
  const dataDir = join(mkdtempSync(join(tmpdir(), "seed-held-")), "data");
  const engine = await startEmbeddedEngine({ dataDir, thread: false });
  try {
    const { code, stderr } = await runSeed([], { DATA_DIR: dataDir });
    assert.equal(code, 1, stderr);
    assert.match(
      stderr,
      /^seed: the embedded engine cannot start: Data directory .* is in use by another engine[^\n]*\n$/,
    );
  } finally {
    await engine.close();
  }
});

test("without a terminal, progress comes as lines a log keeps: one per tenth, the last at 100%", async () => {
  const dataDir = join(mkdtempSync(join(tmpdir(), "seed-lines-")), "data");
  const args = ["--users", "10", "--posts-per-user", "1", "--comments-per-post", "1"];
  const { code, stdout, stderr } = await runSeed(args, { DATA_DIR: dataDir });
  assert.equal(code, 0, stderr);
  assert.deepEqual(stdout.trim().split("\n"), [
    "seeding: 10/30 records (30%)",
    "seeding: 20/30 records (60%)",
    "seeding: 30/30 records (100%)",
    "Added 10 users (from id 1), 10 posts, 10 comments.",
  ]);
});

test("progress lines: one per tenth crossed, however the batches fall", () => {
  const lines: string[] = [];
  const add = progressLines(1000, (line) => lines.push(line));
  for (const n of [50, 50, 1, 499, 399, 1]) add(n);
  assert.deepEqual(lines, [
    "seeding: 100/1000 records (10%)",
    "seeding: 600/1000 records (60%)",
    "seeding: 999/1000 records (90%)",
    "seeding: 1000/1000 records (100%)",
  ]);
});
