import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import type { Socket } from "node:net";
import { type Document, MongoClient } from "mongodb";
import { type EmbeddedEngine, type EmbeddedEngineOptions, startEmbeddedEngine } from "../../src/embedded/mod.ts";
import { opMsg, rawSocket, roundTrip, sendUntilClosed } from "./helpers.ts";

// These are the engine's own limits: they run against the engine even when MONGODB_URI is set.

/** Starts an engine with `options`, runs `body`, and always closes the engine. */
async function withEngine(
  options: EmbeddedEngineOptions,
  body: (engine: EmbeddedEngine) => Promise<void>,
): Promise<void> {
  const engine = await startEmbeddedEngine(options);
  try {
    await body(engine);
  } finally {
    await engine.close();
  }
}

/** Resolves once the server has closed `socket`. */
function closedByServer(socket: Socket): Promise<void> {
  socket.on("error", () => {});
  socket.resume();
  return new Promise((resolve) => socket.once("close", () => resolve()));
}

async function ping(uri: string): Promise<number> {
  const socket = await rawSocket(uri);
  try {
    return (await roundTrip(socket, opMsg({ ping: 1, $db: "admin" }))).ok as number;
  } finally {
    socket.destroy();
  }
}

describe("embedded engine: connection limits", () => {
  test("a connection past maxConnections is closed at once; a freed slot serves again", async () => {
    await withEngine({ maxConnections: 3 }, async (engine) => {
      const held = await Promise.all([1, 2, 3].map(() => rawSocket(engine.uri)));
      for (const socket of held) assert.equal((await roundTrip(socket, opMsg({ ping: 1, $db: "admin" }))).ok, 1);
      const refused = await rawSocket(engine.uri);
      assert.equal(
        (await sendUntilClosed(refused, opMsg({ ping: 1, $db: "admin" }))).length,
        0,
        "no reply past the cap",
      );
      const freed = closedByServer(held[0]!);
      held[0]!.destroy();
      await freed;
      // The engine learns of the close on its own side a moment later: retry until it has.
      let ok = 0;
      while (ok !== 1) ok = await ping(engine.uri).catch(() => 0);
      for (const socket of held) socket.destroy();
    });
  });

  test("an idle connection is closed after idleTimeoutMS", async () => {
    await withEngine({ idleTimeoutMS: 20 }, async (engine) => {
      const socket = await rawSocket(engine.uri);
      assert.equal((await roundTrip(socket, opMsg({ ping: 1, $db: "admin" }))).ok, 1);
      await closedByServer(socket);
    });
  });

  test("a message that never completes is cut after frameTimeoutMS, however long the idle timeout", async () => {
    await withEngine({ frameTimeoutMS: 20 }, async (engine) => {
      const socket = await rawSocket(engine.uri);
      const whole = opMsg({ ping: 1, $db: "admin" });
      const closed = closedByServer(socket);
      socket.write(whole.subarray(0, 10));
      await closed;
      assert.equal(await ping(engine.uri), 1, "the engine serves other connections");
    });
  });

  test("a client that does not read its replies stops being read: the engine holds its requests, not their replies", async () => {
    await withEngine({ maxUnsentReplyBytes: 64 * 1024 }, async (engine) => {
      const client = await new MongoClient(engine.uri).connect();
      try {
        const db = client.db("limits");
        await db.collection("big").insertOne({ _id: 1, blob: "x".repeat(1_000_000) } as Document);
        const socket = await rawSocket(engine.uri);
        socket.pause(); // reads nothing
        const finds = Array.from(
          { length: 40 },
          (_, i) => opMsg({ find: "big", filter: { _id: 1 }, $db: "limits" }, i + 1),
        );
        const marker = opMsg({ insert: "markers", documents: [{ _id: "after-40-MB-of-replies" }], $db: "limits" }, 99);
        socket.write(Buffer.concat([...finds, marker]));
        // 40 MB of replies cannot fit in socket buffers plus 64 KiB: the engine must stop
        // before the marker. Round trips on another connection give it every chance not to.
        for (let i = 0; i < 50; i++) await db.command({ ping: 1 });
        assert.equal(
          await db.collection("markers").countDocuments(),
          0,
          "the marker was handled while replies piled up",
        );
        // Reading the replies lets the engine go on, up to the marker.
        socket.resume();
        while ((await db.collection("markers").countDocuments()) === 0) {
          await new Promise((resolve) => setImmediate(resolve));
        }
        socket.destroy();
      } finally {
        await client.close();
      }
    });
  });

  test("limits are checked at start-up", async () => {
    await assert.rejects(
      startEmbeddedEngine({ maxConnections: 0 }),
      /^RangeError: The engine option maxConnections must be a positive number; got 0$/,
    );
  });
});
