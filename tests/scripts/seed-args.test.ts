/** The seeder's arguments: every mistake is one line and exit 2, before anything is opened. */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { parseSeedArgs, SEED_USAGE } from "../../scripts/seed-args.ts";

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
