import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Socket } from "node:net";
import { Binary, type ClientSession, type Document, type Long, UUID } from "mongodb";
import { CursorRegistry } from "../../src/embedded/cursors.ts";
import { NO_AUTH_DIGEST, SessionCache, sessionKey, userDigest } from "../../src/embedded/sessions.ts";
import { type Connected, connectTarget, opMsg, rawSocket, refused, roundTrip } from "./helpers.ts";

/** SHA-256 of the empty string, in base64: the user digest of every session without authentication. */
const NO_AUTH_UID = "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=";

/** A session's id as the engine keys it. */
const keyOf = (id: Binary) => sessionKey({ id, uid: NO_AUTH_DIGEST });

describe("embedded engine: the session cache", () => {
  test("a session is kept while used and expires after 30 minutes unused", () => {
    let now = 0;
    const cache = new SessionCache(() => now);
    const busy = { id: new UUID(), uid: NO_AUTH_DIGEST };
    const idle = { id: new UUID(), uid: NO_AUTH_DIGEST };
    cache.touch(busy);
    cache.touch(idle);
    now = 29 * 60_000;
    cache.touch(busy);
    assert.deepEqual(cache.expire(), []);
    now = 30 * 60_000 + 1;
    assert.deepEqual(cache.expire(), [sessionKey(idle)]);
    assert.deepEqual(cache.list().map((record) => record.lastUse), [29 * 60_000]);
    now = 59 * 60_000 + 1;
    assert.deepEqual(cache.expire(), [sessionKey(busy)]);
    assert.equal(cache.size, 0);
  });

  test("a full cache refuses a new session but still serves the ones it holds", () => {
    const cache = new SessionCache(Date.now, 60_000, 2);
    const [a, b, c] = [0, 1, 2].map(() => ({ id: new UUID(), uid: NO_AUTH_DIGEST }));
    cache.touch(a);
    cache.touch(b);
    assert.throws(() => cache.touch(c), { codeName: "TooManyLogicalSessions" });
    assert.equal(cache.touch(a), sessionKey(a));
  });

  test("sessions are listed by user digest", () => {
    const cache = new SessionCache();
    const mine = { id: new UUID(), uid: NO_AUTH_DIGEST };
    const theirs = { id: new UUID(), uid: userDigest("ann", "admin") };
    cache.touch(mine);
    cache.touch(theirs);
    assert.equal(Buffer.from(NO_AUTH_DIGEST.buffer).toString("base64"), NO_AUTH_UID);
    assert.deepEqual(cache.list([NO_AUTH_DIGEST]).map(sessionKey), [sessionKey(mine)]);
    assert.deepEqual(cache.list([userDigest("ann", "admin")]).map(sessionKey), [sessionKey(theirs)]);
    assert.equal(cache.list().length, 2);
  });

  test("the sweeper hands over the keys of expired sessions", async () => {
    let now = 0;
    const cache = new SessionCache(() => now);
    const session = { id: new UUID(), uid: NO_AUTH_DIGEST };
    cache.touch(session);
    now = 31 * 60_000;
    // The sweeper's timer is unref'd (an idle engine must not keep a process alive): hold the loop open meanwhile.
    const keepAlive = setInterval(() => {}, 60_000);
    const expired = new Promise<ReadonlySet<string>>((resolve) => cache.startSweeper(resolve, 1));
    assert.deepEqual([...await expired], [sessionKey(session)]);
    clearInterval(keepAlive);
    cache.close();
  });
});

describe("embedded engine: cursors and their sessions", () => {
  const source = (n: number) => Array.from({ length: n }, (_, i) => ({ _id: i }))[Symbol.iterator]();

  test("a noCursorTimeout cursor outlives the idle timeout and dies with its session", () => {
    let now = 0;
    const registry = new CursorRegistry(1 << 20, 10 * 60_000, () => now);
    const kept = registry.first("db.c", source(10), { batchSize: 2, session: "s1", noTimeout: true });
    const idle = registry.first("db.c", source(10), { batchSize: 2, session: "s1" });
    now = 11 * 60_000;
    assert.equal(registry.sweep(), 1);
    assert.equal(registry.ownerOf(idle.cursorId), undefined);
    assert.equal(registry.ownerOf(kept.cursorId)?.session, "s1");
    assert.equal(registry.killSessions(new Set(["s1"])), 1);
    assert.equal(registry.more(kept.cursorId, 2), undefined);
    registry.close();
  });

  test("killing sessions frees only their cursors; cursors outside a session stay", () => {
    const registry = new CursorRegistry(1 << 20);
    const a = registry.first("db.c", source(10), { batchSize: 2, session: "a" });
    const b = registry.first("db.c", source(10), { batchSize: 2, session: "b" });
    const none = registry.first("db.c", source(10), { batchSize: 2 });
    assert.equal(registry.killSessions(new Set(["a"])), 1);
    assert.deepEqual([a, b, none].map((batch) => registry.ownerOf(batch.cursorId) !== undefined), [false, true, true]);
    assert.equal(registry.killSessions("all"), 1);
    assert.equal(registry.size, 1);
    registry.close();
  });
});

/** Session commands and `$listLocalSessions`, as MongoDB 7.0 answers them on a standalone server without authentication. */
describe("embedded engine: session commands", () => {
  let conn: Connected;
  let socket: Socket;

  before(async () => {
    conn = await connectTarget("sessions");
    await conn.db.collection("items").insertMany(Array.from({ length: 10 }, (_, i) => ({ _id: i })) as Document[]);
    socket = await rawSocket(conn.target.uri);
  });
  after(async () => {
    socket.destroy();
    await conn.close();
  });

  const admin = () => conn.client.db("admin");
  const listed = async (spec: Document = {}) =>
    (await admin().aggregate([{ $listLocalSessions: spec }]).toArray()).map((doc) => doc._id.id.toString("hex"));
  /** A find of the items opened in `session`, two documents at a time: its cursor id. */
  const openCursor = async (session: ClientSession): Promise<Long> =>
    (await conn.db.command({ find: "items", batchSize: 2 }, { session })).cursor.id;
  const getMore = (id: Long, session: ClientSession, collection = "items") =>
    conn.db.command({ getMore: id, collection, batchSize: 2 }, { session });

  test("a session a command runs in is listed, with its user digest and last use", async () => {
    const session = conn.client.startSession();
    const before = Date.now();
    await conn.db.collection("items").findOne({}, { session });
    const [record] = await admin()
      .aggregate([{ $listLocalSessions: {} }, { $match: { "_id.id": session.id!.id } }])
      .toArray();
    assert.equal(record._id.uid.toString("base64"), NO_AUTH_UID);
    assert.ok(record.lastUse instanceof Date && record.lastUse.getTime() >= before - 1000, String(record.lastUse));
    assert.deepEqual(Object.keys(record), ["_id", "lastUse"]);
    assert.ok((await listed({ allUsers: true })).includes(session.id!.id.toString("hex")));
    assert.deepEqual(await listed({ users: [{ user: "ann", db: "admin" }] }), []);
    await session.endSession();
  });

  test("startSession opens a session the server names", async () => {
    const reply = await admin().command({ startSession: 1 });
    assert.ok(reply.id.id instanceof Binary && reply.id.id.sub_type === 4, String(reply.id.id));
    assert.equal(reply.timeoutMinutes, 30);
    assert.ok((await listed()).includes(reply.id.id.toString("hex")));
  });

  test("endSessions ends a session and frees its cursors; other sessions keep theirs", async () => {
    const [ending, staying] = [conn.client.startSession(), conn.client.startSession()];
    const [endingCursor, stayingCursor] = [await openCursor(ending), await openCursor(staying)];
    await admin().command({ endSessions: [ending.id] });
    assert.ok(!(await listed()).includes(ending.id!.id.toString("hex")));
    await refused(() => getMore(endingCursor, ending), 43);
    assert.deepEqual((await getMore(stayingCursor, staying)).cursor.nextBatch, [{ _id: 2 }, { _id: 3 }]);
    await staying.endSession();
  });

  test("killSessions frees a session's cursors but keeps the session", async () => {
    const session = conn.client.startSession();
    const cursor = await openCursor(session);
    await admin().command({ killSessions: [session.id] });
    await refused(() => getMore(cursor, session), 43);
    assert.ok((await listed()).includes(session.id!.id.toString("hex")));
    await session.endSession();
  });

  test("killAllSessions frees the cursors of the users it names, every user's for []", async () => {
    const session = conn.client.startSession();
    const cursor = await openCursor(session);
    await admin().command({ killAllSessions: [{ user: "ann", db: "admin" }] });
    assert.equal((await getMore(cursor, session)).cursor.nextBatch.length, 2);
    await admin().command({ killAllSessionsByPattern: [{ users: [{ user: "ann", db: "admin" }] }] });
    assert.equal((await getMore(cursor, session)).cursor.nextBatch.length, 2);
    await admin().command({ killAllSessions: [] });
    await refused(() => getMore(cursor, session), 43);
    await session.endSession();
  });

  test("killAllSessionsByPattern matches a session by its lsid", async () => {
    const [killed, kept] = [conn.client.startSession(), conn.client.startSession()];
    const [killedCursor, keptCursor] = [await openCursor(killed), await openCursor(kept)];
    await admin().command({ killAllSessionsByPattern: [{ lsid: killed.id }] });
    await refused(() => getMore(killedCursor, killed), 43);
    assert.equal((await getMore(keptCursor, kept)).cursor.nextBatch.length, 2);
    await refused(
      () => admin().command({ killAllSessionsByPattern: [{ name: "x" }] }),
      40415,
      "BSON field 'killAllSessionsByPattern.killAllSessionsByPattern.name' is an unknown field.",
    );
    await Promise.all([killed.endSession(), kept.endSession()]);
  });

  test("a getMore runs in its cursor's session and namespace", async () => {
    const [owner, other] = [conn.client.startSession(), conn.client.startSession()];
    const cursor = await openCursor(owner);
    await refused(
      () => getMore(cursor, other),
      50738,
      new RegExp(
        `^Cannot run getMore on cursor ${cursor}, which was created in session ${
          new UUID(owner.id!.id.buffer).toHexString(true)
        } - ${NO_AUTH_UID.replace(/[+/]/g, "\\$&")} -  - , in session `,
      ),
    );
    await refused(
      () => getMore(cursor, owner, "other"),
      13,
      `Requested getMore on namespace '${conn.db.databaseName}.other', but cursor belongs to a different namespace ${conn.db.databaseName}.items`,
    );
    await refused(
      () => conn.db.command({ getMore: cursor }, { session: owner }),
      40414,
      "BSON field 'getMore.collection' is missing but a required field",
    );
    assert.deepEqual((await getMore(cursor, owner)).cursor.nextBatch, [{ _id: 2 }, { _id: 3 }]);
    await Promise.all([owner.endSession(), other.endSession()]);
  });

  test("a getMore outside the cursor's session is refused, and inside one for a cursor opened outside", async () => {
    const db = conn.db.databaseName;
    const lsid = { id: new UUID() };
    const opened = await roundTrip(socket, opMsg({ find: "items", batchSize: 2, lsid, $db: db }));
    const inSession = opened.cursor.id;
    const without = await roundTrip(socket, opMsg({ getMore: inSession, collection: "items", $db: db }));
    assert.equal(without.code, 50737, without.errmsg);
    assert.match(without.errmsg, /, without an lsid$/);
    const plain = (await roundTrip(socket, opMsg({ find: "items", batchSize: 2, $db: db }))).cursor.id;
    const within = await roundTrip(socket, opMsg({ getMore: plain, collection: "items", lsid, $db: db }));
    assert.equal(within.code, 50736, within.errmsg);
    assert.match(
      within.errmsg,
      new RegExp(`^Cannot run getMore on cursor ${plain}, which was not created in a session, in session `),
    );
    const more = await roundTrip(socket, opMsg({ getMore: plain, collection: "items", batchSize: 2, $db: db }));
    assert.equal(more.cursor.nextBatch.length, 2);
  });

  test("a malformed lsid fails the command", async () => {
    const db = conn.db.databaseName;
    const cases: [unknown, number, string][] = [
      ["abc", 14, "BSON field 'OperationSessionInfo.lsid' is the wrong type 'string', expected type 'object'"],
      [{}, 40414, "BSON field 'OperationSessionInfo.lsid.id' is missing but a required field"],
      [{ id: 5 }, 14, "BSON field 'OperationSessionInfo.lsid.id' is the wrong type 'int', expected type 'binData'"],
      [{ id: new Binary(new Uint8Array(16)) }, 207, "uuid must be a 16-byte binary field with UUID (4) subtype"],
    ];
    for (const [lsid, code, errmsg] of cases) {
      const reply = await roundTrip(socket, opMsg({ find: "items", lsid, $db: db }));
      assert.deepEqual([reply.code, reply.errmsg], [code, errmsg], JSON.stringify(lsid));
    }
  });

  test("$listLocalSessions runs first, in aggregate: 1, with MongoDB's option checks", async () => {
    const db = conn.db.databaseName;
    const cases: [Document, number, string][] = [
      [
        { aggregate: "items", pipeline: [{ $listLocalSessions: {} }] },
        73,
        "$listLocalSessions must be run against the database with {aggregate: 1}, not a collection",
      ],
      [
        { aggregate: 1, pipeline: [{ $match: {} }, { $listLocalSessions: {} }] },
        40602,
        "$listLocalSessions is only valid as the first stage in a pipeline",
      ],
      [
        { aggregate: 1, pipeline: [{ $listLocalSessions: 1 }] },
        14,
        "$listLocalSessions options must be specified in an object, but found: int",
      ],
      [
        { aggregate: 1, pipeline: [{ $listLocalSessions: { allUsers: true, users: [{ user: "a", db: "b" }] } }] },
        12,
        "$listLocalSessions may not specify {allUsers:true} and {users:[...]} at the same time",
      ],
      [
        { aggregate: 1, pipeline: [{ $listLocalSessions: { mine: true } }] },
        40415,
        "BSON field '$listLocalSessions.mine' is an unknown field.",
      ],
      [
        { aggregate: 1, pipeline: [{ $listLocalSessions: { allUsers: 1 } }] },
        14,
        "BSON field '$listLocalSessions.allUsers' is the wrong type 'int', expected type 'bool'",
      ],
    ];
    for (const [command, code, errmsg] of cases) {
      const reply = await roundTrip(socket, opMsg({ ...command, cursor: {}, $db: db }));
      assert.deepEqual([reply.code, reply.errmsg], [code, errmsg], JSON.stringify(command));
    }
  });

  test("session commands check their arguments", async () => {
    await refused(
      () => admin().command({ endSessions: 3 }),
      14,
      "BSON field 'endSessions.endSessions' is the wrong type 'int', expected type 'array'",
    );
    await refused(
      () => admin().command({ refreshSessions: [{}] }),
      40414,
      "BSON field 'refreshSessions.refreshSessions.id' is missing but a required field",
    );
    await refused(
      () => admin().command({ killAllSessions: [{ user: "ann" }] }),
      40414,
      "BSON field 'killAllSessions.killAllSessions.db' is missing but a required field",
    );
  });

  test("refreshSessions marks sessions used", async () => {
    const id = new UUID();
    await admin().command({ refreshSessions: [{ id }] });
    const [record] = await admin()
      .aggregate([{ $listLocalSessions: {} }, { $match: { "_id.id": id } }])
      .toArray();
    assert.equal(record?._id.id.toString("hex"), id.toString("hex"));
    assert.equal(keyOf(id), sessionKey({ id, uid: NO_AUTH_DIGEST }));
  });
});
