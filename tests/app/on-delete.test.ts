// deno-lint-ignore-file no-explicit-any -- stored documents and command events are walked field by field
/**
 * A relation's `onDelete`: what DELETE (soft, force, nested) does to the records that point at
 * the deleted one: `restrict` refuses with 409, `cascade` deletes them too (in batches, through
 * their own relations), `setNull` clears their foreign key.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { integer, nullable, optional, string, union } from "superstruct";
import { ApiError, type App, type AppOptions, createApp, defineModel, id } from "../../src/mod.ts";
import { DEFAULT_QUERY_LIMITS } from "../../src/query/limits.ts";
import { RecordStore } from "../../src/store/records.ts";
import { ObjectId } from "mongodb";
import { call, jsonOf } from "../helpers/app.ts";

/** Asserts that createApp refuses `options`; an app it started anyway is closed, so a failure cannot hang the run. */
async function refusedAtStart(options: AppOptions, expected: { name: string; message: string | RegExp }) {
  await assert.rejects(async () => {
    const app = await createApp(options);
    await app.close();
  }, expected);
}

/** Runs `body` against a fresh app, which is closed whatever happens. */
async function withApp(options: AppOptions, body: (app: App) => Promise<void>): Promise<void> {
  const app = await createApp(options);
  try {
    await body(app);
  } finally {
    await app.close();
  }
}

/** A clock one second further on every call, so each write's time is its own. */
function steppingClock(): () => Date {
  let now = Date.UTC(2026, 0, 1);
  return () => new Date(now += 1000);
}

/** POSTs each body to `path` and fails unless every one is stored. */
async function post(app: App, path: string, ...bodies: Record<string, unknown>[]): Promise<void> {
  for (const body of bodies) {
    const res = await call(app, "POST", path, body);
    assert.equal(res.status, 201, `POST ${path}: ${await res.text()}`);
  }
}

/** The stored documents of a collection by id. */
async function stored(app: App, collection: string): Promise<Map<number, any>> {
  const docs = await app.db.collection(collection).find({}).toArray();
  return new Map(docs.map((doc) => [doc._id as unknown as number, doc]));
}

/** The ids of a collection's stored documents, in order. */
async function idsOf(app: App, collection: string, filter: Record<string, unknown> = {}): Promise<number[]> {
  return (await app.db.collection(collection).find(filter).sort({ _id: 1 }).toArray()).map((doc) => doc._id as never);
}

describe("onDelete: restrict", () => {
  const Owner = defineModel({
    name: "Owner",
    fields: { name: string() },
    softDelete: true,
    relations: {
      pets: { type: "hasMany", model: "Pet", foreignKey: "owner_id", onDelete: "restrict" },
      licence: { type: "hasOne", model: "Licence", foreignKey: "owner_id", onDelete: "restrict" },
    },
  });
  const Pet = defineModel({
    name: "Pet",
    fields: { owner_id: id(), name: string() },
    softDelete: true,
    indexes: [{ keys: { owner_id: 1 } }],
  });
  const Licence = defineModel({ name: "Licence", fields: { owner_id: id(), number: string() } });

  test("live children make DELETE and force DELETE a 409 after If-Match and the before-hook; nothing is written", async () => {
    let hookRuns = 0;
    const hooks = { Owner: { onBeforeDelete: () => void hookRuns++, onBeforeForceDelete: () => void hookRuns++ } };
    await withApp({ models: [Owner, Pet, Licence], hooks }, async (app) => {
      await post(app, "/api/v1/owners", { name: "Ann" });
      await post(app, "/api/v1/owners/1/pets", { name: "Rex" });
      const before = await app.db.collection("owners").findOne({ _id: 1 as never });
      assert.equal((await call(app, "DELETE", "/api/v1/owners/1", undefined, { "if-match": '"stale"' })).status, 412);
      assert.equal(hookRuns, 0, "If-Match is checked before the hook and the children");
      for (const path of ["/api/v1/owners/1", "/api/v1/owners/1/force"]) {
        const refused = await jsonOf(await call(app, "DELETE", path));
        assert.deepEqual([refused.status, refused.body], [409, {
          error: "Owner 1 still has pets; delete them first.",
        }]);
      }
      assert.equal(hookRuns, 2, "the before-hooks ran first");
      assert.deepEqual(await app.db.collection("owners").findOne({ _id: 1 as never }), before);
      assert.equal((await call(app, "GET", "/api/v1/owners/1")).status, 200);
      assert.equal((await jsonOf(await call(app, "GET", "/api/v1/pets/1"))).body.owner_id, 1);
    });
  });

  test("the 409 speaks the client's language", async () => {
    await withApp({ models: [Owner, Pet, Licence] }, async (app) => {
      await post(app, "/api/v1/owners", { name: "Ann" });
      await post(app, "/api/v1/pets", { owner_id: 1, name: "Rex" });
      const de = await call(app, "DELETE", "/api/v1/owners/1", undefined, { "accept-language": "de" });
      assert.equal(de.headers.get("content-language"), "de");
      assert.deepEqual(await de.json(), { error: "Owner 1 hat noch Datensätze in pets; löschen Sie diese zuerst." });
      const fr = await call(app, "DELETE", "/api/v1/owners/1", undefined, { "accept-language": "fr" });
      assert.deepEqual([fr.status, await fr.json()], [409, {
        error: "Owner 1 a encore des éléments dans pets ; supprimez-les d'abord.",
      }]);
    });
  });

  test("trashed children do not hold a soft delete, but do hold a removal; a hasOne child holds, in the singular", async () => {
    await withApp({ models: [Owner, Pet, Licence] }, async (app) => {
      await post(app, "/api/v1/owners", { name: "Ann" }, { name: "Bob" });
      await post(app, "/api/v1/pets", { owner_id: 1, name: "Rex" }, { owner_id: 1, name: "Tom" });
      await post(app, "/api/v1/licences", { owner_id: 2, number: "L-2" });
      assert.equal((await call(app, "DELETE", "/api/v1/pets/1")).status, 204);
      assert.equal((await call(app, "DELETE", "/api/v1/owners/1")).status, 409, "pet 2 is still live");
      assert.equal((await call(app, "DELETE", "/api/v1/pets/2")).status, 204);
      assert.equal((await call(app, "DELETE", "/api/v1/owners/1")).status, 204);
      // Removed for good, the owner would leave its trashed pets pointing at nothing (trashed=true, a restore).
      const held = await jsonOf(await call(app, "DELETE", "/api/v1/owners/1/force"));
      assert.deepEqual([held.status, held.body], [409, { error: "Owner 1 still has pets; delete them first." }]);
      for (const pet of [1, 2]) assert.equal((await call(app, "DELETE", `/api/v1/pets/${pet}/force`)).status, 204);
      assert.equal((await call(app, "DELETE", "/api/v1/owners/1/force")).status, 204);
      const one = await jsonOf(await call(app, "DELETE", "/api/v1/owners/2"));
      assert.deepEqual([one.status, one.body], [409, { error: "Owner 2 still has its licence; delete it first." }]);
    });
  });
});

describe("onDelete: cascade", () => {
  const Author = defineModel({
    name: "Author",
    fields: { name: string() },
    softDelete: true,
    relations: {
      books: { type: "hasMany", model: "Book", foreignKey: "author_id", onDelete: "cascade" },
      notes: { type: "hasMany", model: "Note", foreignKey: "author_id", onDelete: "cascade" },
    },
  });
  const Book = defineModel({
    name: "Book",
    fields: { author_id: id(), title: string() },
    softDelete: true,
    relations: { chapters: { type: "hasMany", model: "Chapter", foreignKey: "book_id", onDelete: "cascade" } },
    indexes: [{ keys: { author_id: 1, _id: 1 } }],
  });
  const Chapter = defineModel({
    name: "Chapter",
    fields: { book_id: id(), title: string() },
    softDelete: true,
    indexes: [{ keys: { book_id: 1, _id: 1 } }],
  });
  const Note = defineModel({ name: "Note", fields: { author_id: id(), text: string() } });
  // The children's hooks do not run for a cascade, as SQL's cascades run no triggers of the rows' owners.
  const refuse = () => {
    throw new ApiError("Chapters are never deleted one by one.", 403);
  };
  const options = (): AppOptions => ({
    models: [Author, Book, Chapter, Note],
    hooks: { Chapter: { onBeforeDelete: refuse, onBeforeForceDelete: refuse } },
    clock: steppingClock(),
    clientOptions: { monitorCommands: true },
  });

  /** Authors 1 and 2; books 1–5 of author 1 with chapters 1–10 (two each), book 6 of author 2 with chapter 11. */
  async function seed(app: App): Promise<void> {
    await post(app, "/api/v1/authors", { name: "Ann" }, { name: "Bob" });
    for (let book = 1; book <= 5; book++) await post(app, "/api/v1/authors/1/books", { title: `B${book}` });
    await post(app, "/api/v1/authors/2/books", { title: "B6" });
    for (let book = 1; book <= 5; book++) {
      await post(app, `/api/v1/books/${book}/chapters`, { title: `C${book}a` }, { title: `C${book}b` });
    }
    await post(app, "/api/v1/books/6/chapters", { title: "C6" });
    await post(app, "/api/v1/notes", { author_id: 1, text: "n1" }, { author_id: 2, text: "n2" });
  }

  test("a soft delete soft-deletes children and grandchildren at its own time, in batches; other models' children are removed", async () => {
    await withApp({ ...options(), limits: { cascadeBatchSize: 2 } }, async (app) => {
      await seed(app);
      assert.equal(
        (await call(app, "DELETE", "/api/v1/books/5")).status,
        204,
        "book 5 and its chapters trashed early",
      );
      const commands: any[] = [];
      const listener = (event: { command: any }) => commands.push(event.command);
      app.client.on("commandStarted", listener);
      const deleted = await call(app, "DELETE", "/api/v1/authors/1");
      app.client.off("commandStarted", listener);
      assert.equal(deleted.status, 204);
      const at = (await stored(app, "authors")).get(1).deleted_at as Date;
      const earlier = (await stored(app, "books")).get(5).deleted_at as Date;
      assert.ok(at instanceof Date && earlier < at);
      const books = await stored(app, "books");
      assert.deepEqual([1, 2, 3, 4].map((id) => books.get(id).deleted_at), [at, at, at, at]);
      assert.deepEqual(books.get(5).deleted_at, earlier, "an already trashed book keeps its own time");
      assert.equal(books.get(6).deleted_at, undefined, "another author's book is left alone");
      const chapters = await stored(app, "chapters");
      assert.deepEqual([...chapters.values()].map((c) => c.deleted_at), [
        ...Array(8).fill(at),
        earlier,
        earlier,
        undefined,
      ]);
      assert.equal(books.get(1)._rev, 2, "the store's bookkeeping applies: _rev and updated_at move");
      assert.ok(books.get(1).updated_at > books.get(1).created_at);
      assert.deepEqual(await idsOf(app, "notes"), [2], "notes are no soft-delete model: removed");
      // Every read and write of the children named at most one batch of ids.
      const bookReads = commands.filter((c) => c.find === "books");
      assert.deepEqual(
        bookReads.map((c) => c.limit),
        [2, 2, 2, 2],
        "books 1–4 in two batches of two, then an empty one, then one for ids of other kinds",
      );
      const writes = commands.filter((c) => c.update === "books" || c.update === "chapters");
      assert.ok(writes.length >= 4, `${writes.length} writes`);
      for (const write of writes) assert.ok(write.updates[0].q._id.$in.length <= 2);
      const live = await jsonOf(await call(app, "GET", "/api/v1/books"));
      assert.deepEqual(live.body.data.map((b: { id: number }) => b.id), [6]);
    });
  });

  test("a force delete removes children and grandchildren for good, trashed ones too", async () => {
    await withApp({ ...options(), limits: { cascadeBatchSize: 3 } }, async (app) => {
      await seed(app);
      assert.equal((await call(app, "DELETE", "/api/v1/authors/1")).status, 204);
      assert.equal((await call(app, "DELETE", "/api/v1/authors/1/force")).status, 204, "the trashed author");
      assert.deepEqual(await idsOf(app, "authors"), [2]);
      assert.deepEqual(await idsOf(app, "books"), [6]);
      assert.deepEqual(await idsOf(app, "chapters"), [11]);
      assert.equal((await call(app, "DELETE", "/api/v1/authors/2/force")).status, 204, "a live author");
      assert.deepEqual(await idsOf(app, "books"), []);
      assert.deepEqual(await idsOf(app, "chapters"), []);
      assert.deepEqual(await idsOf(app, "notes"), []);
    });
  });

  test("the response cache does not serve children a cascade deleted", async () => {
    const Writer = defineModel({
      name: "Writer",
      fields: { name: string() },
      relations: { articles: { type: "hasMany", model: "Article", foreignKey: "writer_id", onDelete: "cascade" } },
    });
    const Article = defineModel({ name: "Article", fields: { writer_id: id(), title: string() } });
    await withApp({ models: [Writer, Article] }, async (app) => {
      await post(app, "/api/v1/writers", { name: "Ann" }, { name: "Bob" });
      await post(app, "/api/v1/articles", { writer_id: 1, title: "a" }, { writer_id: 2, title: "b" });
      await post(app, "/api/v1/articles", { writer_id: 1, title: "c" });
      const ids = async () =>
        (await jsonOf(await call(app, "GET", "/api/v1/articles"))).body.data.map((a: any) => a.id);
      assert.deepEqual(await ids(), [1, 2, 3]);
      const kept = await call(app, "GET", "/api/v1/articles");
      assert.match(kept.headers.get("cache-status")!, /hit/, "the list is kept");
      await call(app, "GET", "/api/v1/writers/2?with=articles");
      assert.equal((await call(app, "DELETE", "/api/v1/writers/1")).status, 204);
      assert.deepEqual(await ids(), [2]);
      const nested = await jsonOf(await call(app, "GET", "/api/v1/writers/2?with=articles"));
      assert.deepEqual(nested.body.articles.map((a: any) => a.id), [2]);
    });
  });

  test("a hasOne relation cascades too", async () => {
    const Person = defineModel({
      name: "Person",
      fields: { name: string() },
      relations: { passport: { type: "hasOne", model: "Passport", foreignKey: "person_id", onDelete: "cascade" } },
    });
    const Passport = defineModel({ name: "Passport", fields: { person_id: id(), number: string() } });
    await withApp({ models: [Person, Passport] }, async (app) => {
      await post(app, "/api/v1/people", { name: "Ann" }, { name: "Bob" });
      await post(app, "/api/v1/passports", { person_id: 1, number: "P1" }, { person_id: 2, number: "P2" });
      assert.equal((await call(app, "DELETE", "/api/v1/people/2")).status, 204);
      assert.deepEqual(await idsOf(app, "passports"), [1]);
    });
  });
});

describe("onDelete: setNull", () => {
  const Team = defineModel({
    name: "Team",
    fields: { name: string() },
    relations: {
      members: { type: "hasMany", model: "Member", foreignKey: "team_id", onDelete: "setNull" },
      guest: { type: "hasOne", model: "Guest", foreignKey: "team_id", onDelete: "setNull" },
    },
  });
  const Member = defineModel({ name: "Member", fields: { team_id: nullable(id()), name: string() } });
  // Optional and unique: a cleared key is left out, never stored as a null that two guests would share.
  const Guest = defineModel({
    name: "Guest",
    fields: { team_id: optional(id()), name: string() },
    unique: ["team_id"],
  });

  test("children keep living without a parent: null, or no value for an optional key; ETags move", async () => {
    await withApp({ models: [Team, Member, Guest], clock: steppingClock() }, async (app) => {
      await post(app, "/api/v1/teams", { name: "Red" }, { name: "Blue" });
      await post(app, "/api/v1/members", { team_id: 1, name: "a" }, { team_id: 2, name: "b" }, {
        team_id: 1,
        name: "c",
      });
      await post(app, "/api/v1/guests", { team_id: 1, name: "g1" }, { team_id: 2, name: "g2" });
      const before = await call(app, "GET", "/api/v1/members/1");
      const { updated_at: updatedBefore } = await before.json();
      assert.equal((await call(app, "DELETE", "/api/v1/teams/1")).status, 204);
      const after = await call(app, "GET", "/api/v1/members/1");
      assert.notEqual(after.headers.get("etag"), before.headers.get("etag"));
      const member = await after.json();
      assert.equal(member.team_id, null);
      assert.ok(member.updated_at > updatedBefore);
      const members = await stored(app, "members");
      assert.deepEqual([1, 2, 3].map((id) => members.get(id).team_id), [null, 2, null]);
      assert.equal(members.get(1)._rev, 2);
      assert.equal((await call(app, "DELETE", "/api/v1/teams/2")).status, 204);
      const guests = await stored(app, "guests");
      assert.deepEqual([...guests.values()].map((guest) => "team_id" in guest), [false, false]);
      assert.equal((await jsonOf(await call(app, "GET", "/api/v1/guests/1"))).body.team_id, null);
    });
  });
});

describe("onDelete on nested routes", () => {
  const Shelf = defineModel({
    name: "Shelf",
    fields: { name: string() },
    relations: { boxes: { type: "hasMany", model: "Box", foreignKey: "shelf_id" } },
  });
  const Box = defineModel({
    name: "Box",
    fields: { shelf_id: id(), name: string() },
    relations: {
      items: { type: "hasMany", model: "Item", foreignKey: "box_id", onDelete: "cascade" },
      seals: { type: "hasMany", model: "Seal", foreignKey: "box_id", onDelete: "restrict" },
    },
  });
  const Item = defineModel({ name: "Item", fields: { box_id: id(), name: string() } });
  const Seal = defineModel({ name: "Seal", fields: { box_id: id() } });

  test("/shelves/1/boxes/1 is refused while sealed, then deletes the box's items", async () => {
    await withApp({ models: [Shelf, Box, Item, Seal] }, async (app) => {
      await post(app, "/api/v1/shelves", { name: "S" });
      await post(app, "/api/v1/shelves/1/boxes", { name: "b1" }, { name: "b2" });
      await post(app, "/api/v1/boxes/1/items", { name: "i1" }, { name: "i2" });
      await post(app, "/api/v1/boxes/2/items", { name: "i3" });
      await post(app, "/api/v1/boxes/1/seals", {});
      const refused = await jsonOf(await call(app, "DELETE", "/api/v1/shelves/1/boxes/1"));
      assert.deepEqual([refused.status, refused.body], [409, { error: "Box 1 still has seals; delete them first." }]);
      assert.deepEqual(await idsOf(app, "items"), [1, 2, 3]);
      assert.equal((await call(app, "DELETE", "/api/v1/shelves/1/boxes/1/seals/1")).status, 204);
      assert.equal((await call(app, "DELETE", "/api/v1/shelves/1/boxes/1")).status, 204);
      assert.deepEqual(await idsOf(app, "boxes"), [2]);
      assert.deepEqual(await idsOf(app, "items"), [3]);
    });
  });
});

describe("onDelete is checked at start-up", () => {
  const define = (rel: Record<string, unknown>, fields: Record<string, unknown> = {}) =>
    defineModel({ name: "Odd", fields: { name: string(), ...fields } as never, relations: { pets: rel as never } });
  const Pet = defineModel({ name: "Pet", fields: { odd_id: id() } });

  test("every value is accepted on hasMany and hasOne; none is the default", () => {
    for (const onDelete of ["restrict", "cascade", "setNull", "none"]) {
      for (const type of ["hasMany", "hasOne"]) {
        assert.equal(
          define({ type, model: "Pet", foreignKey: "odd_id", onDelete }).relations.get("pets")!.onDelete,
          onDelete,
        );
      }
    }
    assert.equal(DEFAULT_QUERY_LIMITS.cascadeBatchSize, 1000);
  });

  test("an unknown value, or one on a belongsTo relation, is a TypeError naming the relation", () => {
    assert.throws(() => define({ type: "hasMany", model: "Pet", foreignKey: "odd_id", onDelete: "destroy" }), {
      name: "TypeError",
      message:
        'Model Odd, relation pets: onDelete must be one of "restrict", "cascade", "setNull", "none", got "destroy"',
    });
    assert.throws(
      () => define({ type: "belongsTo", model: "Pet", foreignKey: "pet_id", onDelete: "cascade" }, { pet_id: id() }),
      {
        name: "TypeError",
        message:
          "Model Odd, relation pets: onDelete applies to hasMany and hasOne relations only (the records that point at this one), not to belongsTo",
      },
    );
  });

  test("setNull on a foreign key that must hold a value stops createApp", async () => {
    const Odd = define({ type: "hasMany", model: "Pet", foreignKey: "odd_id", onDelete: "setNull" });
    await refusedAtStart({ models: [Odd, Pet] }, {
      name: "TypeError",
      message:
        'Model Odd: relation "pets" has onDelete "setNull", but Pet.odd_id must hold a value; make it nullable(...) or optional(...), or choose another onDelete',
    });
  });

  test("a cascade that reaches a restrict stops createApp", async () => {
    const Odd = define({ type: "hasMany", model: "Pet", foreignKey: "odd_id", onDelete: "cascade" });
    const Holder = defineModel({
      name: "Pet",
      fields: { odd_id: id() },
      relations: { toys: { type: "hasMany", model: "Toy", foreignKey: "pet_id", onDelete: "restrict" } },
    });
    const Toy = defineModel({ name: "Toy", fields: { pet_id: id() } });
    await refusedAtStart({ models: [Odd, Holder, Toy] }, {
      name: "TypeError",
      message:
        /^Model Odd: relation "pets" has onDelete "cascade", which reaches Pet, whose relation "toys" has onDelete "restrict"/,
    });
  });
});

describe("onDelete against concurrent writes and colliding keys", () => {
  test("a cascade leaves a child that moved to another parent after its batch was read, and what is below it", async () => {
    const User = defineModel({
      name: "User",
      fields: { name: string() },
      relations: { posts: { type: "hasMany", model: "Post", foreignKey: "user_id", onDelete: "cascade" } },
    });
    const Post = defineModel({
      name: "Post",
      fields: { user_id: id(), title: string() },
      relations: { comments: { type: "hasMany", model: "Comment", foreignKey: "post_id", onDelete: "cascade" } },
    });
    const Comment = defineModel({ name: "Comment", fields: { post_id: id(), body: string() } });
    const find = RecordStore.prototype.find;
    await withApp({ models: [User, Post, Comment] }, async (app) => {
      await post(app, "/api/v1/users", { name: "a" }, { name: "b" });
      await post(app, "/api/v1/posts", { user_id: 1, title: "moving" }, { user_id: 1, title: "staying" });
      await post(app, "/api/v1/comments", { post_id: 1, body: "on the moved post" }, {
        post_id: 2,
        body: "on a deleted one",
      });
      // The other request lands between the cascade's read of a batch and its delete of it.
      let concurrent: (() => Promise<unknown>) | undefined = () =>
        call(app, "PATCH", "/api/v1/posts/1", { user_id: 2 });
      RecordStore.prototype.find = async function (this: RecordStore, query) {
        const docs = await find.call(this, query);
        const run = concurrent;
        concurrent = undefined;
        if (run && this.collection.collectionName === "posts") assert.equal((await run() as Response).status, 200);
        return docs;
      };
      try {
        assert.equal((await call(app, "DELETE", "/api/v1/users/1")).status, 204);
      } finally {
        RecordStore.prototype.find = find;
      }
      assert.equal(concurrent, undefined, "the PATCH ran inside the cascade");
      assert.deepEqual(await idsOf(app, "posts"), [1]);
      assert.equal((await jsonOf(await call(app, "GET", "/api/v1/posts/1"))).body.user_id, 2);
      assert.deepEqual(await idsOf(app, "comments"), [1], "the moved post keeps its comment");
    });
  });

  test("a cascade reaches children whose ids are not the API's (written around it), as restrict counts them", async () => {
    const Owner = defineModel({
      name: "Owner",
      fields: { name: string() },
      relations: { pets: { type: "hasMany", model: "Pet", foreignKey: "owner_id", onDelete: "cascade" } },
    });
    const Pet = defineModel({ name: "Pet", fields: { owner_id: id(), name: string() } });
    // Batches of two: several batches of each kind.
    await withApp({ models: [Owner, Pet], limits: { cascadeBatchSize: 2 } }, async (app) => {
      await post(app, "/api/v1/owners", { name: "a" }, { name: "b" });
      await post(app, "/api/v1/pets", ...[1, 1, 1, 2].map((owner_id) => ({ owner_id, name: "api" })));
      const odd: unknown[] = [0, -5, 2.5, NaN, "x", "y", new ObjectId(), { k: 1 }];
      await app.db.collection("pets").insertMany(odd.map((_id) => ({ _id, owner_id: 1, name: "odd" })) as never);
      await app.db.collection("pets").insertOne({ _id: "z", owner_id: 2, name: "other owner" } as never);
      assert.equal((await call(app, "DELETE", "/api/v1/owners/1")).status, 204);
      assert.deepEqual(await idsOf(app, "pets", { owner_id: 1 }), []);
      assert.deepEqual(await idsOf(app, "pets"), [4, "z"]);
    });
  });

  test("setNull on a foreign key inside a compound unique index stops createApp", async () => {
    const Room = defineModel({
      name: "Room",
      fields: { name: string() },
      relations: { seats: { type: "hasMany", model: "Seat", foreignKey: "room_id", onDelete: "setNull" } },
    });
    const Seat = defineModel({
      name: "Seat",
      fields: { room_id: optional(id()), number: integer() },
      indexes: [{ keys: { room_id: 1, number: 1 }, unique: true }],
    });
    await refusedAtStart({ models: [Room, Seat] }, {
      name: "TypeError",
      message:
        'Model Room: relation "seats" has onDelete "setNull", but Seat.room_id is part of the unique index {"room_id":1,"number":1}, where cleared keys would collide; choose "cascade" or "restrict"',
    });
  });

  /** An Owner whose licence is cleared on delete, over a Licence with these fields and indexes. */
  function ownerAndLicence(licence: Pick<Parameters<typeof defineModel>[0], "fields" | "unique" | "indexes">) {
    const Owner = defineModel({
      name: "Owner",
      fields: { name: string() },
      relations: { licence: { type: "hasOne", model: "Licence", foreignKey: "owner_id", onDelete: "setNull" } },
    });
    return [Owner, defineModel({ name: "Licence", ...licence })];
  }

  test("setNull on a foreign key with a declared single-field unique index stops createApp", async () => {
    // A declared index has no partial filter: the first cleared key takes null (or "missing"), the second collides.
    for (const owner_id of [nullable(id()), optional(id())]) {
      const models = ownerAndLicence({
        fields: { owner_id, number: string() },
        indexes: [{ keys: { owner_id: 1 }, unique: true }],
      });
      await refusedAtStart({ models }, {
        name: "TypeError",
        message:
          'Model Owner: relation "licence" has onDelete "setNull", but Licence.owner_id is part of the unique index {"owner_id":1}, where cleared keys would collide; choose "cascade" or "restrict"',
      });
    }
  });

  test("setNull on a unique key whose index cannot tell null from a value stops createApp", async () => {
    const models = ownerAndLicence({
      fields: { owner_id: nullable(union([id(), string()])), number: string() },
      unique: ["owner_id"],
    });
    await refusedAtStart({ models }, {
      name: "TypeError",
      message: /Licence\.owner_id is unique, and its index would count the cleared keys as equal/,
    });
  });

  test("setNull on a nullable unique key clears two licences: its partial index leaves nulls out", async () => {
    const models = ownerAndLicence({ fields: { owner_id: nullable(id()), number: string() }, unique: ["owner_id"] });
    await withApp({ models }, async (app) => {
      await post(app, "/api/v1/owners", { name: "A" }, { name: "B" });
      await post(app, "/api/v1/licences", { owner_id: 1, number: "L1" }, { owner_id: 2, number: "L2" });
      assert.equal((await call(app, "DELETE", "/api/v1/owners/1")).status, 204);
      assert.equal((await call(app, "DELETE", "/api/v1/owners/2")).status, 204);
      const stored = await app.db.collection("licences").find({}, { sort: { _id: 1 } }).toArray();
      assert.deepEqual(stored.map((doc) => doc.owner_id), [null, null]);
    });
  });
});

test("two relations over one foreign key with different onDelete stop createApp", async () => {
  const Author = defineModel({
    name: "Author",
    fields: { name: string() },
    relations: {
      books: { type: "hasMany", model: "Book", foreignKey: "author_id", onDelete: "cascade" },
      drafts: { type: "hasMany", model: "Book", foreignKey: "author_id", filter: { draft: true }, onDelete: "setNull" },
    },
  });
  const Book = defineModel({ name: "Book", fields: { author_id: optional(id()), title: string() } });
  await refusedAtStart({ models: [Author, Book] }, {
    name: "TypeError",
    message:
      'Model Author: relations "books" and "drafts" both follow Book.author_id but have onDelete "cascade" and "setNull"; a delete reaches the same records through both, so give them the same onDelete',
  });
});

test("a foreign key that is an array (written around the API) is no child: never deleted, cleared or counted", async () => {
  const Team = defineModel({
    name: "Team",
    fields: { name: string() },
    relations: {
      members: { type: "hasMany", model: "Member", foreignKey: "team_id", onDelete: "cascade" },
      tags: { type: "hasMany", model: "Tag", foreignKey: "team_id", onDelete: "setNull" },
      badges: { type: "hasMany", model: "Badge", foreignKey: "team_id", onDelete: "restrict" },
    },
  });
  const Member = defineModel({ name: "Member", fields: { team_id: id(), name: string() } });
  const Tag = defineModel({ name: "Tag", fields: { team_id: nullable(id()), name: string() } });
  const Badge = defineModel({ name: "Badge", fields: { team_id: id(), name: string() } });
  await withApp({ models: [Team, Member, Tag, Badge] }, async (app) => {
    await post(app, "/api/v1/teams", { name: "Red" }, { name: "Blue" });
    await post(app, "/api/v1/members", { team_id: 1, name: "only red" });
    // Through the driver: the API refuses an array where an id belongs.
    await app.db.collection("members").insertOne({ _id: 2, team_id: [1, 2], name: "both" } as never);
    await app.db.collection("tags").insertOne({ _id: 1, team_id: [1, 2], name: "shared" } as never);
    await app.db.collection("badges").insertOne({ _id: 1, team_id: [1, 2], name: "shared" } as never);
    assert.equal((await call(app, "DELETE", "/api/v1/teams/1")).status, 204, "the array badge does not hold team 1");
    assert.deepEqual(await idsOf(app, "members"), [2]);
    assert.deepEqual((await app.db.collection("tags").findOne({ _id: 1 as never }))?.team_id, [1, 2]);
  });
});
