/** The seeder's command line: read in full, and every mistake said in one line, before anything is opened. */
import type { SeedCounts } from "./seed-data.ts";

/** What `npm run seed -- …` asks for. */
export interface SeedArgs {
  counts: SeedCounts;
  seed: number;
}

/** `--help` or `-h` anywhere: the seeder prints {@link SEED_HELP} and exits 0, whatever else was given. */
export function wantsHelp(argv: readonly string[]): boolean {
  return argv.includes("--help") || argv.includes("-h");
}

const DEFAULTS = { users: "1000", "posts-per-user": "2", "comments-per-post": "2", seed: "1" };
type OptionName = keyof typeof DEFAULTS;

/** What the seeder takes, appended to every complaint so the line says what is allowed. */
export const SEED_USAGE =
  "usage: npm run seed -- [--users N] [--posts-per-user N] [--comments-per-post N] [--seed N], each N a whole number";

/** `--help`: what each option does and its default. */
export const SEED_HELP = `npm run seed -- [options]: fills the example app's database (MONGODB_URI, else the embedded
engine in DATA_DIR, default ./data) with made-up users, each with posts, each post with comments.
Stop npm start first if it uses the same DATA_DIR.

  --users N              users to add (default ${DEFAULTS.users})
  --posts-per-user N     posts per user (default ${DEFAULTS["posts-per-user"]})
  --comments-per-post N  comments per post (default ${DEFAULTS["comments-per-post"]})
  --seed N               the random seed: the same seed gives the same people (default ${DEFAULTS.seed})
  --help, -h             this text`;

function isOption(name: string): name is OptionName {
  return Object.hasOwn(DEFAULTS, name);
}

function wholeNumber(raw: string, name: string): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value)) {
    throw new TypeError(`--${name} must be a whole number, got ${JSON.stringify(raw)}; ${SEED_USAGE}`);
  }
  return value;
}

/** The options as given (`--users 10` or `--users=10`), or a TypeError saying what was wrong. */
function readOptions(argv: readonly string[]): Record<OptionName, string> {
  const values = { ...DEFAULTS };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith("--")) throw new TypeError(`unexpected argument ${JSON.stringify(arg)}; ${SEED_USAGE}`);
    const [name, inline] = arg.slice(2).split(/=(.*)/s, 2);
    if (!isOption(name)) throw new TypeError(`unknown option ${JSON.stringify(`--${name}`)}; ${SEED_USAGE}`);
    // A next argument that is an option is not this one's value: `--users --seed 2` lacks one.
    const value = inline ?? (argv[i + 1]?.startsWith("--") ? undefined : argv[++i]);
    if (value === undefined) throw new TypeError(`--${name} needs a value; ${SEED_USAGE}`);
    values[name] = value;
  }
  return values;
}

/**
 * Reads the seeder's arguments (without the runtime and script): counts and seed, all whole
 * numbers. Throws a TypeError with one line on any mistake: an unknown option, a stray
 * argument, a missing or non-numeric value.
 * @example parseSeedArgs(["--users", "10"]).counts.users // 10
 */
export function parseSeedArgs(argv: readonly string[]): SeedArgs {
  const values = readOptions(argv);
  return {
    counts: {
      users: wholeNumber(values.users, "users"),
      postsPerUser: wholeNumber(values["posts-per-user"], "posts-per-user"),
      commentsPerPost: wholeNumber(values["comments-per-post"], "comments-per-post"),
    },
    seed: wholeNumber(values.seed, "seed"),
  };
}
