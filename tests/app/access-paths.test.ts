/**
 * Access rules over HTTP, path by path: for every principal (anonymous, two users of one tenant,
 * a user of another, an admin, an API key) and every path a record can leave by (list, show,
 * HEAD, conditional requests, `with` at two depths, related conditions in `q`, nested routes,
 * counts, cursors, the response cache, writes and cascades), no response holds, counts or lets
 * the client infer a record or field outside that principal's rules, and each allowed request
 * gets exactly the records it should. The seed is printed; TEST_SEED replays a run.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { SignJWT } from "jose";
import { optional, string } from "superstruct";
import { type App, createApp, defineModel, id, principal } from "../../src/mod.ts";
import { keyHash } from "../../src/service/api-keys.ts";
import { call, jsonOf } from "../helpers/app.ts";
import { seededRandom, seedNote, TEST_SEED } from "../helpers/seed.ts";

const SECRET = "the access-path test's secret, thirty-two characters or more";
const NOW = Date.UTC(2026, 5, 1);
const SERVICE_KEY = "service-key-0123456789abcdef";

const sameTenant = { tenant: principal("claims.tenant") };

const Account = defineModel({
  name: "Account",
  fields: { tenant: string(), name: string(), email: string() },
  relations: { notes: { type: "hasMany", model: "Note", foreignKey: "account_id", onDelete: "cascade" } },
  access: {
    admin: { all: true },
    service: { read: true },
    authenticated: {
      read: { where: sameTenant, fields: ["tenant", "name"] },
      // Only oneself: a rule on the id, which the write's own id condition must not replace.
      patch: { where: { id: principal("subject") }, writable: ["name"] },
    },
  },
});

const Note = defineModel({
  name: "Note",
  fields: { account_id: id(), tenant: string(), title: string(), secret: optional(string()) },
  relations: {
    account: { type: "belongsTo", model: "Account", foreignKey: "account_id" },
    replies: { type: "hasMany", model: "Reply", foreignKey: "note_id", onDelete: "cascade" },
  },
  access: {
    admin: { all: true },
    service: { read: true },
    authenticated: {
      read: { where: sameTenant, fields: ["account_id", "tenant", "title"] },
      insert: { set: { account_id: principal("subject"), tenant: principal("claims.tenant") }, writable: ["title"] },
      update: { where: { account_id: principal("subject") }, writable: ["title"] },
      patch: { where: { account_id: principal("subject") }, writable: ["title"] },
      delete: { where: { account_id: principal("subject") } },
    },
  },
});

const Reply = defineModel({
  name: "Reply",
  fields: { note_id: id(), tenant: string(), text: string() },
  relations: { note: { type: "belongsTo", model: "Note", foreignKey: "note_id" } },
  access: { admin: { all: true }, service: { read: true }, authenticated: { read: { where: sameTenant } } },
});

// A foreign key the client chooses: linking to a note must not tell one outside the rules from a missing one.
const Bookmark = defineModel({
  name: "Bookmark",
  fields: { note_id: id(), label: string() },
  relations: { note: { type: "belongsTo", model: "Note", foreignKey: "note_id" } },
  access: { admin: { all: true }, authenticated: { insert: true } },
});

interface Who {
  name: string;
  headers: Record<string, string>;
  /** The tenant whose records it may read, or "*" for all, or null for none. */
  tenant: string | null;
  /** The fields of a note it sees. */
  noteFields: readonly string[];
}

interface Seeded {
  accounts: { id: number; tenant: string }[];
  notes: { id: number; account_id: number; tenant: string }[];
  replies: { id: number; note_id: number; tenant: string }[];
}

async function token(claims: Record<string, unknown>): Promise<string> {
  return await new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).setIssuedAt(NOW / 1000)
    .setExpirationTime(NOW / 1000 + 3600).sign(new TextEncoder().encode(SECRET));
}

const SYSTEM = ["id", "created_at", "updated_at"];
const OWN_NOTE_FIELDS = [...SYSTEM, "account_id", "tenant", "title"];
const ALL_NOTE_FIELDS = [...OWN_NOTE_FIELDS, "secret"];

const random = seededRandom(38);
let app: App;
let seeded: Seeded;
let principals: Who[];

async function seed(): Promise<Seeded> {
  const admin = { authorization: `Bearer ${await token({ sub: "0", roles: ["admin"] })}` };
  const result: Seeded = { accounts: [], notes: [], replies: [] };
  for (let i = 0; i < 6; i++) {
    const tenant = i < 4 ? "t1" : "t2";
    const res = await jsonOf(
      await call(app, "POST", "/api/v1/accounts", { tenant, name: `n${i}`, email: `a${i}@x.test` }, admin),
    );
    assert.equal(res.status, 201, JSON.stringify(res.body));
    result.accounts.push({ id: res.body.id, tenant });
  }
  for (const account of result.accounts) {
    const count = 1 + Math.floor(random() * 4);
    for (let n = 0; n < count; n++) {
      const body = { account_id: account.id, tenant: account.tenant, title: `t${n}`, secret: "s" };
      const res = await jsonOf(await call(app, "POST", "/api/v1/notes", body, admin));
      assert.equal(res.status, 201, JSON.stringify(res.body));
      result.notes.push({ id: res.body.id, account_id: account.id, tenant: account.tenant });
      const reply = { note_id: res.body.id, tenant: account.tenant, text: "r" };
      const written = await jsonOf(await call(app, "POST", "/api/v1/replies", reply, admin));
      result.replies.push({ id: written.body.id, note_id: res.body.id, tenant: account.tenant });
    }
  }
  return result;
}

async function principalsOf(): Promise<Who[]> {
  const user = async (sub: number, tenant: string) => ({
    authorization: `Bearer ${await token({ sub: String(sub), tenant })}`,
  });
  return [
    { name: "anonymous", headers: {}, tenant: null, noteFields: [] },
    { name: "user 1 (t1)", headers: await user(1, "t1"), tenant: "t1", noteFields: OWN_NOTE_FIELDS },
    { name: "user 2 (t1)", headers: await user(2, "t1"), tenant: "t1", noteFields: OWN_NOTE_FIELDS },
    { name: "user 5 (t2)", headers: await user(5, "t2"), tenant: "t2", noteFields: OWN_NOTE_FIELDS },
    {
      name: "admin",
      headers: { authorization: `Bearer ${await token({ sub: "0", roles: ["admin"] })}` },
      tenant: "*",
      noteFields: ALL_NOTE_FIELDS,
    },
    { name: "service key", headers: { "x-api-key": SERVICE_KEY }, tenant: "*", noteFields: ALL_NOTE_FIELDS },
  ];
}

const sees = (who: Who, tenant: string) => who.tenant === "*" || who.tenant === tenant;

before(async () => {
  console.log(`access-paths seed: ${TEST_SEED} ${seedNote()}`);
  app = await createApp({
    models: [Account, Note, Reply, Bookmark],
    auth: {
      roles: ["admin", "service"],
      jwt: { secret: SECRET },
      apiKeys: { keys: [{ name: "reporting", sha256: keyHash(SERVICE_KEY), roles: ["service"] }] },
      now: () => NOW,
    },
  });
  seeded = await seed();
  principals = await principalsOf();
});
after(async () => await app?.close());

describe("reads: list, count, show, HEAD, conditional requests", () => {
  test("a list holds exactly the notes the principal may read, counts only those, and only its fields", async () => {
    for (const who of principals) {
      const res = await call(app, "GET", "/api/v1/notes?per_page=100&count=exact", undefined, who.headers);
      if (who.tenant === null) {
        assert.equal(res.status, 401, who.name);
        assert.match(res.headers.get("www-authenticate") ?? "", /^Bearer/);
        assert.match((await res.json()).error, /^Sign-in is required for paginate on Note/);
        continue;
      }
      const { status, body } = await jsonOf(res);
      assert.equal(status, 200, who.name);
      const expected = seeded.notes.filter((note) => sees(who, note.tenant)).map((note) => note.id);
      assert.deepEqual(body.data.map((note: { id: number }) => note.id), expected, who.name);
      assert.equal(body.pagination.total, expected.length, `${who.name}: the count`);
      for (const note of body.data) assert.deepEqual(Object.keys(note).sort(), [...who.noteFields].sort(), who.name);
    }
  });

  test("a note outside the rules is a 404 on show, HEAD, If-None-Match and If-Match, as a missing one is", async () => {
    const other = seeded.notes.find((note) => note.tenant === "t2")!;
    const user1 = principals[1];
    const admin = principals[4];
    const shown = await call(app, "GET", `/api/v1/notes/${other.id}`, undefined, admin.headers);
    const etag = shown.headers.get("etag")!;
    await shown.body?.cancel();
    const missing = await jsonOf(await call(app, "GET", "/api/v1/notes/999999", undefined, user1.headers));
    const hidden = await jsonOf(await call(app, "GET", `/api/v1/notes/${other.id}`, undefined, user1.headers));
    assert.equal(hidden.status, 404);
    assert.equal(hidden.body.error.replace(/\d+/g, "N"), missing.body.error.replace(/\d+/g, "N"));
    const head = await call(app, "HEAD", `/api/v1/notes/${other.id}`, undefined, user1.headers);
    assert.equal(head.status, 404);
    const conditional = { ...user1.headers, "if-none-match": etag };
    assert.equal((await call(app, "GET", `/api/v1/notes/${other.id}`, undefined, conditional)).status, 404);
    const ifMatch = { ...user1.headers, "if-match": etag };
    const write = await call(app, "PATCH", `/api/v1/notes/${other.id}`, { title: "x" }, ifMatch);
    assert.equal(write.status, 404, "not a 412: that would say the record exists");
    const stale = { ...user1.headers, "if-match": '"stale"' };
    assert.equal((await call(app, "DELETE", `/api/v1/notes/${other.id}`, undefined, stale)).status, 404);
  });

  test("fields a role may not read are refused in fields, sort and q, as hidden fields are", async () => {
    const user1 = principals[1];
    for (const query of ["fields=secret", "sort=secret", 'q={"secret":"s"}']) {
      const res = await call(app, "GET", `/api/v1/notes?${query}`, undefined, user1.headers);
      assert.equal(res.status, 400, query);
      await res.body?.cancel();
    }
    const admin = await call(app, "GET", "/api/v1/notes?fields=secret", undefined, principals[4].headers);
    assert.equal(admin.status, 200);
    await admin.body?.cancel();
  });
});

describe("every principal × every read path", () => {
  /** The status a principal gets for a note or account of `tenant`: 401 anonymous, 404 outside its rules. */
  const statusFor = (who: Who, tenant: string) => who.tenant === null ? 401 : sees(who, tenant) ? 200 : 404;

  test("lists under every count strategy: exactly the readable notes, their total and lastPage, nothing else", async () => {
    for (const who of principals) {
      const expected = seeded.notes.filter((note) => sees(who, note.tenant)).map((note) => note.id);
      for (const count of ["exact", "estimated", "none"]) {
        const res = await jsonOf(
          await call(app, "GET", `/api/v1/notes?per_page=5&count=${count}`, undefined, who.headers),
        );
        if (who.tenant === null) {
          assert.equal(res.status, 401, `${who.name} count=${count}`);
          continue;
        }
        assert.deepEqual(res.body.data.map((n: { id: number }) => n.id), expected.slice(0, 5), `${who.name} ${count}`);
        if (count === "none") assert.equal(res.body.pagination.total, null);
        else {
          assert.equal(res.body.pagination.total, expected.length, `${who.name}: count=${count} counts only its notes`);
          assert.equal(res.body.pagination.lastPage, Math.max(1, Math.ceil(expected.length / 5)));
        }
      }
    }
  });

  test("show and HEAD of every note, with its account: 200 inside the rules, 404 outside, 401 anonymous", async () => {
    for (const who of principals) {
      for (const note of seeded.notes) {
        const path = `/api/v1/notes/${note.id}?with=account`;
        const res = await call(app, "GET", path, undefined, who.headers);
        assert.equal(res.status, statusFor(who, note.tenant), `${who.name} GET note ${note.id}`);
        const body = await res.json();
        if (res.status === 200) {
          assert.deepEqual(Object.keys(body).filter((k) => k !== "account").sort(), [...who.noteFields].sort());
          assert.equal(body.account.id, note.account_id);
        }
        const head = await call(app, "HEAD", path, undefined, who.headers);
        assert.equal(head.status, res.status, `${who.name} HEAD note ${note.id}`);
        assert.equal(await head.text(), "");
      }
    }
  });

  test("nested lists of every account, and related conditions on every tenant", async () => {
    for (const who of principals) {
      for (const account of seeded.accounts) {
        const res = await jsonOf(
          await call(app, "GET", `/api/v1/accounts/${account.id}/notes`, undefined, who.headers),
        );
        assert.equal(res.status, statusFor(who, account.tenant), `${who.name} notes of account ${account.id}`);
        if (res.status !== 200) continue;
        const expected = seeded.notes.filter((note) => note.account_id === account.id).map((note) => note.id);
        assert.deepEqual(res.body.data.map((n: { id: number }) => n.id), expected);
      }
      for (const tenant of ["t1", "t2"]) {
        const q = encodeURIComponent(JSON.stringify({ "account.tenant": tenant }));
        const res = await jsonOf(await call(app, "GET", `/api/v1/notes?per_page=100&q=${q}`, undefined, who.headers));
        if (who.tenant === null) {
          assert.equal(res.status, 401);
          continue;
        }
        const expected = seeded.notes.filter((note) => note.tenant === tenant && sees(who, tenant)).map((n) => n.id);
        assert.deepEqual(res.body.data.map((n: { id: number }) => n.id), expected, `${who.name} q on tenant ${tenant}`);
      }
    }
  });
});

describe("relations: with at every depth, related conditions in q, nested routes", () => {
  test("with=account{notes} shows only the related records and fields of the principal's rules", async () => {
    const user1 = principals[1];
    const { status, body } = await jsonOf(
      await call(app, "GET", "/api/v1/replies?per_page=100&with=note{account{notes}}", undefined, user1.headers),
    );
    assert.equal(status, 200);
    for (const reply of body.data) {
      assert.equal(reply.tenant, "t1");
      assert.equal(reply.note.tenant, "t1");
      assert.equal("secret" in reply.note, false, "a field the role may not read stays out at depth 1");
      assert.deepEqual(Object.keys(reply.note.account).sort(), [...SYSTEM, "name", "notes", "tenant"].sort());
      for (const note of reply.note.account.notes) assert.equal(note.tenant, "t1");
    }
  });

  test("a related condition matches only related records the principal may read", async () => {
    // Every t2 account is named n4 or n5: a t1 user asking for notes of an account named n4 learns nothing.
    const user1 = principals[1];
    const probe = encodeURIComponent(JSON.stringify({ "account.name": "n4" }));
    const res = await jsonOf(await call(app, "GET", `/api/v1/notes?q=${probe}`, undefined, user1.headers));
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, []);
    const hiddenField = encodeURIComponent(JSON.stringify({ "account.email": "a4@x.test" }));
    const refused = await call(app, "GET", `/api/v1/notes?q=${hiddenField}`, undefined, user1.headers);
    assert.equal(refused.status, 400, "email is not among the fields the role reads of an account");
    await refused.body?.cancel();
    const admin = await jsonOf(await call(app, "GET", `/api/v1/notes?q=${probe}`, undefined, principals[4].headers));
    assert.ok(admin.body.data.length > 0);
  });

  test("a nested route under a parent the principal may not read is a 404, at every depth", async () => {
    const foreign = seeded.accounts.find((account) => account.tenant === "t2")!;
    const note = seeded.notes.find((n) => n.account_id === foreign.id)!;
    const user1 = principals[1];
    for (const path of [`/api/v1/accounts/${foreign.id}/notes`, `/api/v1/accounts/${foreign.id}/notes/${note.id}`]) {
      const res = await call(app, "GET", path, undefined, user1.headers);
      assert.equal(res.status, 404, path);
      await res.body?.cancel();
    }
    const own = seeded.accounts[0];
    const res = await jsonOf(await call(app, "GET", `/api/v1/accounts/${own.id}/notes`, undefined, user1.headers));
    assert.deepEqual(
      res.body.data.map((n: { id: number }) => n.id),
      seeded.notes.filter((n) => n.account_id === own.id).map((n) => n.id),
    );
  });
});

describe("cursors and the response cache", () => {
  test("a cursor issued to one principal grants nothing to another", async () => {
    const user1 = principals[1];
    const first = await jsonOf(await call(app, "GET", "/api/v1/notes?per_page=1&count=none", undefined, user1.headers));
    const next = first.body.pagination.next as string;
    assert.ok(next, "a next cursor");
    const path = `/api/v1/notes?cursor=${next}`;
    const replayed = await jsonOf(await call(app, "GET", path, undefined, principals[3].headers));
    assert.equal(replayed.status, 400);
    assert.match(replayed.body.error, /another/i);
    const own = await call(app, "GET", path, undefined, user1.headers);
    assert.equal(own.status, 200);
    await own.body?.cancel();
  });

  test("one principal's cached page is never served to another", async () => {
    const path = "/api/v1/notes?per_page=100&count=exact";
    const admin = await jsonOf(await call(app, "GET", path, undefined, principals[4].headers));
    const again = await jsonOf(await call(app, "GET", path, undefined, principals[4].headers));
    assert.deepEqual(again.body, admin.body);
    const user5 = await jsonOf(await call(app, "GET", path, undefined, principals[3].headers));
    assert.ok(user5.body.data.every((note: { tenant: string }) => note.tenant === "t2"));
    assert.ok(user5.body.data.length < admin.body.data.length);
  });
});

describe("writes and cascades", () => {
  test("an insert takes its owner and tenant from the token, and refuses fields the role may not write", async () => {
    const user2 = principals[2];
    const made = await jsonOf(
      await call(app, "POST", "/api/v1/notes", { title: "mine" }, user2.headers),
    );
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.deepEqual([made.body.account_id, made.body.tenant], [2, "t1"]);
    const forged = await jsonOf(
      await call(app, "POST", "/api/v1/notes", { title: "x", secret: "y" }, user2.headers),
    );
    assert.equal(forged.status, 400);
    assert.ok(forged.body.errors?.secret, JSON.stringify(forged.body));
    const anonymous = await call(app, "POST", "/api/v1/notes", { title: "x" });
    assert.equal(anonymous.status, 401);
    await anonymous.body?.cancel();
  });

  test("update, patch and delete reach only the principal's own notes; another's is a 404", async () => {
    const user1 = principals[1];
    const others = seeded.notes.filter((note) => note.account_id !== 1);
    const theirs = others[Math.floor(random() * others.length)];
    for (const [method, body] of [["PATCH", { title: "x" }], ["PUT", { title: "x" }], ["DELETE", undefined]] as const) {
      const res = await call(app, method, `/api/v1/notes/${theirs.id}`, body, user1.headers);
      assert.equal(res.status, 404, `${method} of note ${theirs.id}`);
      await res.body?.cancel();
    }
    const mine = seeded.notes.find((note) => note.account_id === 1)!;
    const patched = await jsonOf(await call(app, "PATCH", `/api/v1/notes/${mine.id}`, { title: "new" }, user1.headers));
    assert.equal(patched.status, 200);
    assert.equal(patched.body.title, "new");
    assert.equal("secret" in patched.body, false, "the response shows what the principal may read");
  });

  test("a rule on the record's own id holds beside the path's id: another account is a 404", async () => {
    const user1 = principals[1];
    const other = await call(app, "PATCH", "/api/v1/accounts/2", { name: "taken" }, user1.headers);
    assert.equal(other.status, 404);
    await other.body?.cancel();
    const etag = { ...user1.headers, "if-match": "*" };
    const guarded = await call(app, "PATCH", "/api/v1/accounts/2", { name: "taken" }, etag);
    assert.equal(guarded.status, 404, "the guarded write too");
    await guarded.body?.cancel();
    const own = await jsonOf(await call(app, "PATCH", "/api/v1/accounts/1", { name: "me" }, user1.headers));
    assert.deepEqual([own.status, own.body.name], [200, "me"]);
  });

  test("a foreign key to a record outside the writer's rules is refused exactly as one to a missing record", async () => {
    const missing = Math.max(...seeded.notes.map((note) => note.id)) + 1000;
    for (const who of principals.filter((who) => who.tenant !== null && who.name !== "service key")) {
      const absent = await jsonOf(
        await call(app, "POST", "/api/v1/bookmarks", { note_id: missing, label: "x" }, who.headers),
      );
      assert.equal(absent.status, 400, `${who.name}: ${JSON.stringify(absent.body)}`);
      for (const note of seeded.notes) {
        const res = await jsonOf(
          await call(app, "POST", "/api/v1/bookmarks", { note_id: note.id, label: "x" }, who.headers),
        );
        if (sees(who, note.tenant)) assert.equal(res.status, 201, `${who.name} → note ${note.id}`);
        else {assert.deepEqual(
            [res.status, res.body],
            [400, absent.body],
            `${who.name} → note ${note.id} (${note.tenant})`,
          );}
      }
    }
  });

  test("cascades run as the framework: deleting an account removes its notes and their replies", async () => {
    const admin = principals[4];
    const victim = seeded.accounts[3];
    const res = await call(app, "DELETE", `/api/v1/accounts/${victim.id}`, undefined, admin.headers);
    assert.equal(res.status, 204);
    const notes = seeded.notes.filter((note) => note.account_id === victim.id).map((note) => note.id);
    assert.equal(await app.db.collection("notes").countDocuments({ account_id: victim.id }), 0);
    assert.equal(await app.db.collection("replies").countDocuments({ note_id: { $in: notes } }), 0);
  });
});

describe("credentials", () => {
  test("a bad token and a wrong API key are 401s saying so; nothing is read", async () => {
    const bad = await call(app, "GET", "/api/v1/notes", undefined, { authorization: "Bearer not.a.token" });
    assert.equal(bad.status, 401);
    assert.match(bad.headers.get("www-authenticate")!, /error="invalid_token"/);
    const body = await bad.json();
    assert.equal(typeof body.error, "string");
    const wrongKey = await call(app, "GET", "/api/v1/notes", undefined, { "x-api-key": "wrong" });
    assert.equal(wrongKey.status, 401);
    await wrongKey.body?.cancel();
    const expired = await new SignJWT({ sub: "1", tenant: "t1" }).setProtectedHeader({ alg: "HS256" })
      .setExpirationTime(NOW / 1000 - 60).sign(new TextEncoder().encode(SECRET));
    const late = await call(app, "GET", "/api/v1/notes", undefined, { authorization: `Bearer ${expired}` });
    assert.equal(late.status, 401);
    assert.match(late.headers.get("www-authenticate")!, /expired/);
    await late.body?.cancel();
  });
});

describe("the OpenAPI document", () => {
  test("names the ways in, who may call each operation, and its 401 and 403", async () => {
    const doc = await (await call(app, "GET", "/api/v1/openapi.json")).json();
    assert.deepEqual(Object.keys(doc.components.securitySchemes).sort(), ["apiKeyAuth", "bearerAuth"]);
    assert.equal(doc.components.securitySchemes.bearerAuth.scheme, "bearer");
    const list = doc.paths["/api/v1/notes"].get;
    assert.deepEqual(
      list.security,
      [{ bearerAuth: [] }, { apiKeyAuth: [] }],
      "no anonymous entry: it needs credentials",
    );
    assert.deepEqual(list["x-roles"], ["admin", "service", "authenticated"]);
    assert.ok(list.responses["401"] && list.responses["403"] === undefined, "authenticated may list: no 403");
    const create = doc.paths["/api/v1/notes"].post;
    assert.ok(create.responses["401"] && create.responses["403"], "a write may fail its rule");
    const replies = doc.paths["/api/v1/replies"].post;
    assert.deepEqual(replies["x-roles"], ["admin"]);
  });
});
