import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { BSON, type Document } from "mongodb";
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

  test("a checksum trailer is accepted", async (t) => {
    if (!conn.target.embedded) return t.skip("MongoDB verifies the CRC; the engine skips it");
    const socket = await rawSocket(conn.target.uri);
    const reply = await roundTrip(socket, frameOf(body({ ping: 1, $db: "admin" }), 1, Buffer.alloc(4)));
    assert.equal(reply.ok, 1);
    socket.destroy();
  });

  test("the legacy OP_QUERY handshake is answered with OP_REPLY", async () => {
    const socket = await rawSocket(conn.target.uri);
    const query = BSON.serialize({ isMaster: 1 });
    const ns = Buffer.from("admin.$cmd\0", "latin1");
    const frame = Buffer.alloc(16 + 4 + ns.length + 8 + query.length);
    frame.writeInt32LE(frame.length, 0);
    frame.writeInt32LE(3, 4);
    frame.writeInt32LE(2004, 12);
    ns.copy(frame, 20);
    frame.writeInt32LE(-1, 20 + ns.length + 4);
    frame.set(query, 28 + ns.length);
    const reply = await new Promise<Buffer>((resolve) => socket.once("data", resolve).write(frame));
    assert.equal(reply.readInt32LE(12), 1);
    assert.equal(reply.readInt32LE(8), 3);
    const doc = BSON.deserialize(reply.subarray(36));
    assert.equal(doc.ismaster, true);
    assert.ok(doc.maxWireVersion >= 17);
    socket.destroy();
  });
});
