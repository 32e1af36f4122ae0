/**
 * `npm run seed -- [--users 1000] [--posts-per-user 2] [--comments-per-post 2] [--seed 1]` (the
 * defaults; `--help` lists them): fills the example app's database (MONGODB_URI, else the embedded
 * engine in DATA_DIR, default ./data) with users, posts and comments, with a progress bar on a
 * terminal and progress lines elsewhere. A data folder another engine holds is one line, exit 1. Stop `npm start` first when it
 * uses the same DATA_DIR: one engine at a time may own a data folder.
 */
import process from "node:process";
import { Presets, SingleBar } from "cli-progress";
import { createApp, StartupError } from "../src/mod.ts";
import type { App } from "../src/mod.ts";
import { loadModels } from "../src/loader.ts";
import { seedExampleApp } from "./seed-data.ts";
import { parseSeedArgs, SEED_HELP, type SeedArgs, wantsHelp } from "./seed-args.ts";
import { progressLines } from "./seed-progress.ts";

/** The arguments, or one line on stderr and exit 2: before the engine or the database is opened. */
function argsOrExit(): SeedArgs {
  const argv = process.argv.slice(2);
  if (wantsHelp(argv)) {
    console.log(SEED_HELP);
    process.exit(0);
  }
  try {
    return parseSeedArgs(argv);
  } catch (error) {
    console.error(`seed: ${(error as Error).message}`);
    process.exit(2);
  }
}

/** The app, or one line and exit 1 when the environment keeps it from starting (a held data folder). */
async function appOrExit(): Promise<App> {
  try {
    return await createApp({
      models: await loadModels("models"),
      uri: process.env.MONGODB_URI || undefined,
      dataDir: process.env.DATA_DIR || "./data",
    });
  } catch (error) {
    if (!(error instanceof StartupError)) throw error;
    console.error(`seed: ${error.message}`);
    process.exit(1);
  }
}

/** A bar on a terminal; elsewhere (CI, a pipe) a line per tenth, which a log keeps. */
function progress(total: number): { add(n: number): void; stop(): void } {
  if (!process.stderr.isTTY) return { add: progressLines(total, (line) => console.log(line)), stop() {} };
  const bar = new SingleBar(
    { format: "seeding [{bar}] {percentage}% | {value}/{total} records | ETA {eta}s" },
    Presets.shades_classic,
  );
  bar.start(total, 0);
  return { add: (n) => bar.increment(n), stop: () => bar.stop() };
}

const { counts, seed } = argsOrExit();
const total = counts.users * (1 + counts.postsPerUser * (1 + counts.commentsPerPost));
const app = await appOrExit();
const shown = progress(total);
try {
  const first = await seedExampleApp(app, counts, { seed, onProgress: (n) => shown.add(n) });
  shown.stop();
  const posts = counts.users * counts.postsPerUser;
  console.log(
    `Added ${counts.users} users (from id ${first.User}), ${posts} posts, ${posts * counts.commentsPerPost} comments.`,
  );
} finally {
  shown.stop();
  await app.close();
}
