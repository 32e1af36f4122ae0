import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { MongoClient } from "mongodb";
import { type EmbeddedEngine, startEmbeddedEngine } from "../../src/embedded/mod.ts";
import { openDatabase } from "../../src/store/connect.ts";
import { tempFolder } from "../fixtures/engine-model.ts";

/**
 * The embedded engine in a worker thread of its own (the default of createApp and
 * openDatabase): the write counter the app's caches rely on is current the moment a write's
 * reply arrives, start-up errors surface with the engine's own messages, and close releases the
 * data folder after the data is safe.
 */

const folders: (() => Promise<void>)[] = [];
after(async () => {
  for (const cleanup of folders) await cleanup();
});

async function fresh(): Promise<string> {
  const { dir, cleanup } = await tempFolder("engine-thread");
  folders.push(cleanup);
  return dir;
}

async function withClient<T>(engine: EmbeddedEngine, use: (client: MongoClient) => Promise<T>): Promise<T> {
  const client = await new MongoClient(engine.uri).connect();
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

/** The error `start` rejects with, to compare the two ways of running the engine. */
async function failure(start: Promise<EmbeddedEngine>): Promise<Error> {
  const engine = await start.catch((error: Error) => error);
  if (!(engine instanceof Error)) {
    await engine.close();
    assert.fail("the engine started");
  }
  return engine;
}

describe("embedded engine in a thread of its own", () => {
  test("the collection's write counter has moved when the write's reply reaches the driver", async () => {
    const engine = await startEmbeddedEngine({ thread: true });
    try {
      await withClient(engine, async (client) => {
        const users = client.db("app").collection("users");
        const others = client.db("app").collection("comments");
        for (let i = 0; i < 20; i++) {
          const [mine, total] = [engine.collectionChangeCount("app", "users"), engine.changeCount()];
          await users.insertOne({ _id: i, name: `n${i}` } as never);
          assert.notEqual(engine.collectionChangeCount("app", "users"), mine, `write ${i}`);
          assert.equal(engine.changeCount(), total + 1);
          const afterWrite = engine.collectionChangeCount("app", "users");
          await users.find({}).toArray();
          await others.insertOne({ _id: i } as never);
          assert.equal(
            engine.collectionChangeCount("app", "users"),
            afterWrite,
            "reads and other collections leave it",
          );
        }
        const untouched = engine.collectionChangeCount("app", "never-written");
        await client.db("app").dropDatabase();
        assert.notEqual(
          engine.collectionChangeCount("app", "never-written"),
          untouched,
          "a drop moves every collection",
        );
      });
    } finally {
      await engine.close();
    }
  });

  test("openDatabase runs the engine in its thread by default, and in this one on request", async () => {
    for (const engineThread of [undefined, false]) {
      const database = await openDatabase({ engineThread });
      try {
        const before = database.collectionChangeCount!("users");
        await database.db.collection("users").insertOne({ name: "a" });
        assert.equal(database.collectionChangeCount!("users"), before + 1, `engineThread: ${engineThread}`);
      } finally {
        await database.close();
      }
    }
  });

  test("close finishes the data's writes and releases the folder; a held folder is refused as in this thread", async () => {
    const dataDir = await fresh();
    const engine = await startEmbeddedEngine({ dataDir, thread: true });
    await withClient(
      engine,
      (client) => client.db("app").collection("c").insertMany([{ _id: 1 }, { _id: 2 }] as never[]),
    );
    const refused = new RegExp(
      `^Data directory .+ is in use by another engine \\(pid ${process.pid}\\)\\. Stop it or choose another DATA_DIR\\.$`,
    );
    assert.match((await failure(startEmbeddedEngine({ dataDir }))).message, refused);
    assert.match((await failure(startEmbeddedEngine({ dataDir, thread: true }))).message, refused);
    await engine.close();
    const again = await startEmbeddedEngine({ dataDir });
    try {
      const ids = await withClient(again, (client) => client.db("app").collection("c").find().toArray());
      assert.deepEqual(ids, [{ _id: 1 }, { _id: 2 }]);
    } finally {
      await again.close();
    }
  });

  test("a data folder that cannot be used fails start-up with the same error in both threads", async () => {
    const file = join(await fresh(), "a-file");
    await writeFile(file, "not a folder");
    const here = await failure(startEmbeddedEngine({ dataDir: file }));
    const there = await failure(startEmbeddedEngine({ dataDir: file, thread: true }));
    assert.equal(there.message, here.message);
    assert.equal(there.name, here.name);
    assert.equal((there as { code?: string }).code, (here as { code?: string }).code);
  });

  test("a bad option fails start-up with the same class of error in both threads", async () => {
    const here = await failure(startEmbeddedEngine({ maxConnections: 0 }));
    const there = await failure(startEmbeddedEngine({ maxConnections: 0, thread: true }));
    assert.equal(there.message, here.message);
    assert.equal(Object.getPrototypeOf(there), Object.getPrototypeOf(here), `${here.name} in both`);
  });

  test("engines in the thread are independent, and a closed one stops answering", async () => {
    const [one, two] = await Promise.all([
      startEmbeddedEngine({ thread: true }),
      startEmbeddedEngine({ thread: true }),
    ]);
    try {
      await withClient(one, (client) => client.db("app").collection("c").insertOne({ _id: 1 } as never));
      assert.equal(one.collectionChangeCount("app", "c"), 1);
      assert.equal(two.collectionChangeCount("app", "c"), 0);
      const seen = await withClient(two, (client) => client.db("app").collection("c").countDocuments());
      assert.equal(seen, 0);
    } finally {
      await two.close();
    }
    await Promise.all([one.close(), one.close()]);
    await one.close();
    const client = new MongoClient(one.uri, { serverSelectionTimeoutMS: 200 });
    await assert.rejects(client.connect());
    await client.close();
  });
});
