import { after, before, beforeEach, describe, test } from "node:test";
import type { Socket } from "node:net";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { BSON, type Document } from "mongodb";
import { crc32c } from "../../src/embedded/wire/crc32c.ts";
import { type Connected, connectTarget, opMsg, rawSocket, roundTrip, sendUntilClosed } from "./helpers.ts";

/** Builds an OP_MSG frame from raw section bytes, with an optional flags word and trailer. */
function frameOf(sections: Uint8Array, flags = 0, trailer = new Uint8Array(0)): Buffer {
  const frame = Buffer.alloc(20 + sections.length + trailer.length);
  frame.writeInt32LE(frame.length, 0);
  frame.writeInt32LE(9, 4);
  frame.writeInt32LE(2013, 12);
  frame.writeUInt32LE(flags, 16);
  frame.set(sections, 20);
  frame.set(trailer, 20 + sections.length);
  return frame;
}

function body(doc: Document): Buffer {
  return Buffer.concat([Buffer.from([0]), BSON.serialize(doc)]);
}

/** A legacy OP_QUERY frame (request id 3) sending `query` to namespace `ns`. */
function queryFrame(ns: string, query: Document): Buffer {
  const bson = BSON.serialize(query);
  const name = Buffer.from(`${ns}\0`, "latin1");
  const frame = Buffer.alloc(16 + 4 + name.length + 8 + bson.length);
  frame.writeInt32LE(frame.length, 0);
  frame.writeInt32LE(3, 4);
  frame.writeInt32LE(2004, 12);
  name.copy(frame, 20);
  frame.writeInt32LE(-1, 20 + name.length + 4);
  frame.set(bson, 28 + name.length);
  return frame;
}

function sequence(name: string, docs: Document[]): Buffer {
  const payload = Buffer.concat([Buffer.from(name + "\0", "latin1"), ...docs.map((d) => BSON.serialize(d))]);
  const size = Buffer.alloc(4);
  size.writeInt32LE(payload.length + 4);
  return Buffer.concat([Buffer.from([1]), size, payload]);
}

/**
 * Malformed input closes the offending connection only: the engine keeps serving the driver
 * client connected beforehand, and new connections.
 */
describe("embedded engine: malformed input", () => {
  let conn: Connected;

  before(async () => {
    conn = await connectTarget("bad_input");
    await conn.db.collection("probe").insertOne({ _id: 1, ok: true } as Document);
  });
  after(async () => {
    await conn.close();
  });

  async function stillServing(): Promise<void> {
    assert.deepEqual(await conn.db.collection("probe").findOne({ _id: 1 } as Document), { _id: 1, ok: true });
    const socket = await rawSocket(conn.target.uri);
    const reply = await roundTrip(socket, opMsg({ ping: 1, $db: "admin" }));
    assert.equal(reply.ok, 1);
    socket.destroy();
  }

  // MongoDB itself may answer some malformed frames with an error instead of closing; those
  // checks are about the engine's contract, so they only run against it.
  const engineOnly = (t: { skip(message: string): void }): boolean => {
    if (!conn.target.embedded) t.skip("engine contract: MongoDB may reply with an error instead");
    return !conn.target.embedded;
  };

  async function expectClosed(bytes: Uint8Array): Promise<void> {
    const socket = await rawSocket(conn.target.uri);
    const received = await sendUntilClosed(socket, bytes);
    assert.equal(received.length, 0, "no reply to a malformed frame");
    await stillServing();
  }

  test("garbage bytes", { timeout: 10_000 }, async () => {
    await expectClosed(Buffer.from("GET / HTTP/1.1\r\nHost: example\r\n\r\n"));
  });

  test("a length smaller than a header", { timeout: 10_000 }, async (t) => {
    if (engineOnly(t)) return;
    const frame = Buffer.alloc(16);
    frame.writeInt32LE(8, 0);
    await expectClosed(frame);
  });

  test("an oversized message length closes before any body is sent", { timeout: 10_000 }, async () => {
    const header = Buffer.alloc(16);
    header.writeInt32LE(100_000_000, 0);
    header.writeInt32LE(2013, 12);
    await expectClosed(header);
  });

  test("an unknown opcode", { timeout: 10_000 }, async (t) => {
    if (engineOnly(t)) return;
    await expectClosed(opMsg({ ping: 1, $db: "admin" }, 1, 4242));
  });

  test("a truncated section inside a complete frame", { timeout: 10_000 }, async (t) => {
    if (engineOnly(t)) return;
    const doc = BSON.serialize({ ping: 1, $db: "admin" });
    await expectClosed(frameOf(Buffer.concat([Buffer.from([0]), doc.subarray(0, doc.length - 3)])));
  });

  test("a frame cut short by the client", { timeout: 10_000 }, async () => {
    const frame = opMsg({ ping: 1, $db: "admin" });
    const socket = await rawSocket(conn.target.uri);
    socket.write(frame.subarray(0, frame.length - 5));
    socket.end();
    assert.equal((await sendUntilClosed(socket, new Uint8Array(0))).length, 0);
    await stillServing();
  });

  test("invalid BSON (unknown element type)", { timeout: 10_000 }, async (t) => {
    if (engineOnly(t)) return;
    const doc = Buffer.from(BSON.serialize({ a: 1, $db: "admin" }));
    doc[4] = 0x77;
    await expectClosed(frameOf(Buffer.concat([Buffer.from([0]), doc])));
  });

  test("an unknown section kind", { timeout: 10_000 }, async (t) => {
    if (engineOnly(t)) return;
    await expectClosed(frameOf(Buffer.concat([Buffer.from([5]), BSON.serialize({ ping: 1 })])));
  });
});

/** Well-formed but less common framing. */
describe("embedded engine: OP_MSG framing", () => {
  let conn: Connected;

  before(async () => {
    conn = await connectTarget("framing");
  });
  after(async () => {
    await conn.close();
  });

  test("kind-1 document sequences carry insert documents", async () => {
    const socket = await rawSocket(conn.target.uri);
    const frame = frameOf(
      Buffer.concat([
        body({ insert: "seq", $db: conn.target.dbName }),
        sequence("documents", [{ _id: 1 }, { _id: 2 }]),
      ]),
    );
    const reply = await roundTrip(socket, frame);
    assert.equal(reply.n, 2);
    socket.destroy();
    assert.equal(await conn.db.collection("seq").countDocuments(), 2);
  });

  test("moreToCome gets no reply but is applied", async () => {
    const socket = await rawSocket(conn.target.uri);
    socket.write(
      frameOf(body({ insert: "quiet", documents: [{ _id: 1 }], writeConcern: { w: 0 }, $db: conn.target.dbName }), 2),
    );
    const reply = await roundTrip(socket, opMsg({ count: "quiet", $db: conn.target.dbName }));
    assert.equal(reply.n, 1);
    socket.destroy();
  });

  test("a checksum trailer is verified: a right CRC-32C is accepted, a wrong one closes the connection", async () => {
    const sections = body({ ping: 1, $db: "admin" });
    const unsigned = frameOf(sections, 1, Buffer.alloc(4));
    const trailer = Buffer.alloc(4);
    trailer.writeUInt32LE(crc32c(unsigned, 0, unsigned.length - 4));
    const socket = await rawSocket(conn.target.uri);
    assert.equal((await roundTrip(socket, frameOf(sections, 1, trailer))).ok, 1);
    socket.destroy();
    const wrong = await rawSocket(conn.target.uri);
    assert.equal((await sendUntilClosed(wrong, unsigned)).length, 0);
  });

  test("a document sequence named twice, or named in the body too, closes the connection unapplied", async () => {
    const db = conn.target.dbName;
    await conn.db.collection("kept").insertMany([{ _id: 1 }, { _id: 2 }] as Document[]);
    const twice = frameOf(Buffer.concat([
      body({ insert: "kept", $db: db }),
      sequence("documents", [{ _id: 3 }]),
      sequence("documents", [{ _id: 4 }]),
    ]));
    assert.equal((await sendUntilClosed(await rawSocket(conn.target.uri), twice)).length, 0);
    const both = frameOf(Buffer.concat([
      body({ delete: "kept", deletes: [{ q: { _id: "none" }, limit: 0 }], $db: db }),
      sequence("deletes", [{ q: {}, limit: 0 }]),
    ]));
    assert.equal((await sendUntilClosed(await rawSocket(conn.target.uri), both)).length, 0);
    assert.deepEqual(await conn.db.collection("kept").find().toArray(), [{ _id: 1 }, { _id: 2 }]);
  });

  test("an OP_MSG without $db is refused (40571)", async () => {
    const socket = await rawSocket(conn.target.uri);
    for (const command of [{ ping: 1 }, { ping: 1, $db: 5 }]) {
      const reply = await roundTrip(socket, opMsg(command));
      assert.deepEqual([reply.code, reply.errmsg], [40571, "OP_MSG requests require a $db argument"]);
    }
    socket.destroy();
  });

  test("OP_QUERY carries the handshake only; a null $query closes the connection and the engine stays up", async () => {
    const socket = await rawSocket(conn.target.uri);
    const reply = await new Promise<Buffer>((resolve) =>
      socket.once("data", resolve).write(queryFrame(`${conn.target.dbName}.$cmd`, { find: "kept" }))
    );
    const doc = BSON.deserialize(reply.subarray(36));
    assert.equal(doc.code, 352);
    assert.match(doc.errmsg, /^Unsupported OP_QUERY command: find\. The client driver may require an upgrade/);
    socket.destroy();
    const crash = queryFrame("admin.$cmd", { $query: null });
    assert.equal((await sendUntilClosed(await rawSocket(conn.target.uri), crash)).length, 0);
    assert.equal((await conn.client.db("admin").command({ ping: 1 })).ok, 1);
  });

  test("the legacy OP_QUERY handshake is answered with OP_REPLY", async () => {
    const socket = await rawSocket(conn.target.uri);
    const frame = queryFrame("admin.$cmd", { isMaster: 1 });
    const reply = await new Promise<Buffer>((resolve) => socket.once("data", resolve).write(frame));
    assert.equal(reply.readInt32LE(12), 1);
    assert.equal(reply.readInt32LE(8), 3);
    const doc = BSON.deserialize(reply.subarray(36));
    assert.equal(doc.ismaster, true);
    assert.ok(doc.maxWireVersion >= 17);
    socket.destroy();
  });
});

/** Commands MongoDB refuses before they touch data: malformed statements, batch sizes, names, replies too large. */
describe("embedded engine: writes and names MongoDB refuses", () => {
  let conn: Connected;
  let socket: Socket;

  before(async () => {
    conn = await connectTarget("refused_writes");
    socket = await rawSocket(conn.target.uri);
  });
  beforeEach(async () => {
    await conn.db.collection("items").deleteMany({});
    await conn.db.collection("items").insertMany([{ _id: 1, a: 1 }, { _id: 2, a: 2 }] as Document[]);
  });
  after(async () => {
    socket.destroy();
    await conn.close();
  });

  const run = (command: Document, db = conn.target.dbName) => roundTrip(socket, opMsg({ ...command, $db: db }));
  const refusedWith = async (command: Document, code: number, errmsg: string | RegExp, db?: string) => {
    const reply = await run(command, db);
    assert.equal(reply.code, code, JSON.stringify(reply).slice(0, 300));
    if (typeof errmsg === "string") assert.equal(reply.errmsg, errmsg);
    else assert.match(reply.errmsg, errmsg);
  };
  const stored = () => conn.db.collection("items").countDocuments();

  test("a delete or update statement without q, or with a q that is not a document, changes nothing", async () => {
    const missing = (path: string, field: string) => `BSON field '${path}.${field}' is missing but a required field`;
    await refusedWith({ delete: "items", deletes: [{ limit: 0 }] }, 40414, missing("delete.deletes", "q"));
    await refusedWith({ delete: "items", deletes: [{ q: { a: 1 } }] }, 40414, missing("delete.deletes", "limit"));
    await refusedWith(
      { delete: "items", deletes: [{ q: 5, limit: 0 }] },
      14,
      "BSON field 'delete.deletes.q' is the wrong type 'int', expected type 'object'",
    );
    await refusedWith(
      { delete: "items", deletes: [{ q: null, limit: 0 }] },
      14,
      /'delete.deletes.q' is the wrong type 'null'/,
    );
    await refusedWith(
      { update: "items", updates: [{ u: { $set: { z: 1 } }, multi: true }] },
      40414,
      missing("update.updates", "q"),
    );
    await refusedWith({ update: "items", updates: [{ q: {} }] }, 40414, missing("update.updates", "u"));
    // The second statement is malformed: the first does not run either.
    await refusedWith(
      { delete: "items", deletes: [{ q: { a: 1 }, limit: 1 }, { limit: 0 }] },
      40414,
      /'delete.deletes.q'/,
    );
    assert.equal(await stored(), 2);
    assert.deepEqual(await conn.db.collection("items").find({ z: 1 }).toArray(), []);
  });

  test("write batches hold 1 to 100,000 statements", async () => {
    const sizes = (n: number) => `Write batch sizes must be between 1 and 100000. Got ${n} operations.`;
    await refusedWith({ insert: "items", documents: [] }, 16, sizes(0));
    await refusedWith({ insert: "items", documents: Array.from({ length: 100_001 }, () => ({})) }, 16, sizes(100_001));
    await refusedWith({ delete: "items", deletes: [] }, 16, sizes(0));
    assert.equal(await stored(), 2);
  });

  test("names MongoDB refuses never reach the catalog", async () => {
    const db = conn.target.dbName;
    for (const name of ["a$b", "a\0b", ".hidden"]) {
      await refusedWith({ insert: name, documents: [{ _id: 1 }] }, 73, `Invalid namespace specified '${db}.${name}'`);
      await refusedWith({ create: name }, 73, `Invalid namespace specified '${db}.${name}'`);
    }
    const long = "x".repeat(300);
    await refusedWith(
      { insert: long, documents: [{}] },
      73,
      `Fully qualified namespace is too long. Namespace: ${db}.${long} Max: 255`,
    );
    await refusedWith(
      { aggregate: "items", pipeline: [{ $out: "a\0b" }], cursor: {} },
      73,
      `Invalid namespace specified '${db}.a\0b'`,
    );
    for (const badDb of ["x\0y", "../etc", "a.b", "a b"]) {
      await refusedWith({ insert: "items", documents: [{}] }, 73, `Invalid database name: '${badDb}'`, badDb);
    }
    await refusedWith({ ping: 1 }, 73, "db name must be at most 63 characters, found: 64", "d".repeat(64));
    const names = (await conn.db.listCollections().toArray()).map((c) => c.name);
    assert.deepEqual(names, ["items"]);
    const dbs = (await conn.client.db("admin").command({ listDatabases: 1 })).databases.map((d: Document) => d.name);
    assert.ok(dbs.every((name: string) => !/[\0./ ]/.test(name)), dbs.join());
  });

  test("a result document over 16 MiB is refused (10334), whole, never cut short", async () => {
    const size = 5 * 1024 * 1024;
    await conn.db.collection("big").insertMany(
      [0, 1, 2, 3].map((i) => ({ _id: i, big: "abcd"[i]!.repeat(size) })) as Document[],
    );
    const pushed = [{ $group: { _id: null, all: { $push: "$big" } } }];
    await refusedWith({ aggregate: "big", pipeline: pushed, cursor: {} }, 10334, /^BSONObj size: \d+ .* is invalid/);
    await refusedWith({ distinct: "big", key: "big" }, 10334, /^BSONObj size: \d+ .* is invalid/);
    const three = await run({ aggregate: "big", pipeline: [{ $limit: 3 }, ...pushed], cursor: {} });
    assert.equal(three.ok, 1);
    assert.deepEqual(three.cursor.firstBatch[0].all.map((text: string) => text.length), [size, size, size]);
  });
});
