/**
 * What a capped `with=posts` costs when one parent has many children, the relation's read as it
 * was and as it is, side by side on the same data in the same run:
 *
 *   npx tsx scripts/bench-relations.ts [--children 100000] [--others 10] [--rounds 15]
 *
 * The example models (no hooks) on the embedded engine in this thread (`engineThread: false`),
 * without the response cache: `--others` users with 10 posts each, and user 1 with `--children`
 * posts. Each round times, through the driver, the level's aggregate for the page's users:
 *
 * - baseline: the read before 2026-11-24, on `posts`: every child of the page's users,
 *   numbered per user by `$setWindowFields` and cut at the cap;
 * - current: the aggregate `handlers/relations.ts` sends now, captured from the app's own
 *   `GET /api/v1/users?with=posts` with the driver's command monitoring;
 *
 * then the whole request through `app.fetch`. It prints the medians, the per-round ratio, what
 * `explain` (executionStats) says each read examined, and whether both return the same children.
 */
import type { CommandStartedEvent, Db, Document } from "mongodb";
import { fileURLToPath } from "node:url";
import { createApp } from "../src/mod.ts";
import { loadModels } from "../src/loader.ts";
import { syncCounter } from "../src/store/ids.ts";
import { insertExampleUsers } from "./lib/example-users.ts";
import { flag, loadAverage, median } from "./lib/report.ts";

const CHILDREN = flag("children", 100_000);
const OTHERS = flag("others", 10);
const ROUNDS = flag("rounds", 15);
const CAP = 100; // limits.maxChildrenPerParent's default
const PAGE = `/api/v1/users?per_page=${OTHERS + 1}&with=posts`;

/** User 1's posts, then 10 for each other user, stored as the framework stores a Post. */
async function insertPosts(db: Db): Promise<void> {
  const posts = db.collection("posts");
  let id = 1;
  const owners = [...Array(CHILDREN).fill(1), ...Array.from({ length: OTHERS * 10 }, (_, i) => 2 + (i % OTHERS))];
  for (let from = 0; from < owners.length; from += 5000) {
    const docs = owners.slice(from, from + 5000).map((userId) => {
      const at = new Date(Date.UTC(2026, 0, 1) + id * 1000);
      return { _id: id++, user_id: userId, title: `Post ${id}`, created_at: at, updated_at: at, _rev: 1 };
    });
    await posts.insertMany(docs as never[]);
  }
  await syncCounter(db, "posts");
}

/** The relation read as it was: every child of the parents, ranked per parent, cut at the cap. */
function baselinePipeline(parents: number[]): Document[] {
  const order = { _id: 1 };
  return [
    { $match: { user_id: { $in: parents } } },
    { $setWindowFields: { partitionBy: "$user_id", sortBy: order, output: { __rank: { $documentNumber: {} } } } },
    { $match: { __rank: { $lte: CAP } } },
    { $sort: order },
    { $project: { _id: 1, user_id: 1, title: 1, body: 1, created_at: 1, updated_at: 1 } },
  ];
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

/** Keys and documents examined by a pipeline, summed over its read and its `$lookup` stages. */
function examined(explained: Document): { keys: number; docs: number; scans: number } {
  const total = { keys: 0, docs: 0, scans: 0 };
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== "object") return;
    const stats = node as Document;
    if (typeof stats.totalKeysExamined === "number" && typeof stats.totalDocsExamined === "number") {
      total.keys += stats.totalKeysExamined;
      total.docs += stats.totalDocsExamined;
      if (typeof stats.collectionScans === "number") total.scans += stats.collectionScans;
      return;
    }
    Object.values(stats).forEach(visit);
  };
  visit(explained);
  return total;
}

const models = await loadModels(fileURLToPath(new URL("../models", import.meta.url)));
const app = await createApp({
  models,
  responseCache: false,
  engineThread: false,
  clientOptions: { monitorCommands: true },
});
try {
  await insertExampleUsers(app.db, OTHERS + 1);
  await insertPosts(app.db);
  let captured: Document | undefined;
  app.client.on("commandStarted", (event: CommandStartedEvent) => {
    if (event.commandName === "aggregate" && JSON.stringify(event.command.pipeline).includes('"$lookup"')) {
      captured = event.command;
    }
  });
  const first = await app.fetch(new Request(`http://localhost${PAGE}`));
  if (first.status !== 200 || captured === undefined) throw new Error(`${PAGE}: ${first.status}, no $lookup seen`);
  const current = captured;
  const parents = Array.from({ length: OTHERS + 1 }, (_, i) => i + 1);
  const baseline = baselinePipeline(parents);
  const run = (collection: string, pipeline: Document[]) => () =>
    app.db.collection(collection).aggregate(pipeline, { batchSize: 100_000 }).toArray();
  const [was, now] = await Promise.all([run("posts", baseline)(), run(current.aggregate, current.pipeline)()]);
  const key = (docs: Document[]) => docs.map((doc) => `${doc.user_id}:${doc._id}`).sort().join(",");
  const same = key(was) === key(now);

  const times = { baseline: [] as number[], current: [] as number[], request: [] as number[], ratio: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    const old = await timed(run("posts", baseline));
    const fresh = await timed(run(current.aggregate, current.pipeline));
    times.baseline.push(old);
    times.current.push(fresh);
    times.ratio.push(old / fresh);
    times.request.push(
      await timed(async () => void await (await app.fetch(new Request(`http://localhost${PAGE}`))).text()),
    );
  }
  const explain = (collection: string, pipeline: Document[]) =>
    app.db.command({ explain: { aggregate: collection, pipeline, cursor: {} }, verbosity: "executionStats" });
  const before = examined(await explain("posts", baseline));
  const after = examined(await explain(current.aggregate, current.pipeline));

  console.log(`# bench-relations: ${OTHERS + 1} users, user 1 with ${CHILDREN} posts, the others 10 each;`);
  console.log(`# ${ROUNDS} rounds, embedded engine in this thread, no response cache, load ${loadAverage()}`);
  console.log(`# GET ${PAGE}\n`);
  console.log("| relation read | median ms | keys examined | documents examined | children |");
  console.log("| --- | ---: | ---: | ---: | ---: |");
  const row = (name: string, ms: number[], work: typeof before, n: number) =>
    console.log(`| ${name} | ${median(ms).toFixed(1)} | ${work.keys} | ${work.docs} | ${n} |`);
  row("baseline: $setWindowFields on posts", times.baseline, before, was.length);
  row(`current: $lookup from ${current.aggregate}`, times.current, after, now.length);
  console.log(`\ncurrent: collection scans in its $lookup: ${after.scans}`);
  console.log(`baseline/current per round (median): ${median(times.ratio).toFixed(1)}×`);
  console.log(`whole request (page, count, relation): median ${median(times.request).toFixed(1)} ms`);
  console.log(`same children from both reads: ${same ? "yes" : "NO"}`);
  if (!same) process.exitCode = 1;
} finally {
  await app.close();
}
