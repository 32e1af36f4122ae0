import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { optional, string } from "superstruct";
import { ANONYMOUS, defineModel, id, type Principal, principal } from "../../src/mod.ts";
import { createRegistry } from "../../src/model/registry.ts";
import { AccessPolicy, fingerprintOf, RequestAccess } from "../../src/query/access.ts";
import { DEFAULT_QUERY_LIMITS } from "../../src/query/limits.ts";

const user = (subject: string, ...roles: string[]): Principal => ({
  subject,
  roles: [...roles, "authenticated"],
  claims: { sub: subject, tenant: "t1" },
  via: "jwt",
});

const Note = defineModel({
  name: "Note",
  fields: { owner_id: id(), tenant: string(), text: string(), secret: optional(string()) },
  access: {
    admin: { all: true },
    authenticated: {
      read: { where: { tenant: principal("claims.tenant") }, fields: ["text", "owner_id"] },
      insert: { set: { owner_id: principal("subject"), tenant: principal("claims.tenant") }, writable: ["text"] },
      update: { where: { owner_id: principal("subject") } },
    },
    anonymous: { paginate: { where: { "text.$like": "public*" } } },
  },
});
const Open = defineModel({ name: "Open", fields: { text: string() }, access: "public" });
const Closed = defineModel({ name: "Closed", fields: { text: string() } });
const registry = createRegistry([Note, Open, Closed]);
const policy = new AccessPolicy(registry, ["admin"], DEFAULT_QUERY_LIMITS);

describe("grants", () => {
  test("the first listed role the principal has decides, with its values filled in and converted", () => {
    const grant = policy.grant(user("7"), Note, "update")!;
    assert.deepEqual([grant.role, grant.filter], ["authenticated", { owner_id: 7 }]);
    const insert = policy.grant(user("7"), Note, "insert")!;
    assert.deepEqual(insert.set, { owner_id: 7, tenant: "t1" });
    assert.deepEqual([...insert.writable!], ["text"]);
    assert.equal(policy.grant(user("7", "admin"), Note, "delete")!.role, "admin");
  });

  test("fields a role may not read are hidden in its view of the model, system fields stay", () => {
    const view = policy.grant(user("7"), Note, "show")!.view;
    assert.deepEqual(view.visible, ["id", "created_at", "updated_at", "owner_id", "text"]);
    assert.ok(view.hidden.has("tenant") && view.hidden.has("secret"));
    assert.equal(policy.grant(user("7", "admin"), Note, "show")!.view, Note, "an unrestricted role sees the model");
  });

  test("no rule for the operation, or no role for it: no grant; closed models grant nothing, public ones everything", () => {
    assert.equal(policy.grant(ANONYMOUS, Note, "show"), null);
    assert.equal(policy.grant(user("7"), Note, "delete"), null);
    assert.equal(policy.grant(user("7", "admin"), Closed, "paginate"), null);
    assert.deepEqual(policy.grant(ANONYMOUS, Open, "delete")!.filter, {});
  });

  test("a value the principal lacks, or of the wrong kind, makes the rule reach nothing", () => {
    const noTenant: Principal = { ...user("7"), claims: {} };
    assert.deepEqual(policy.grant(noTenant, Note, "paginate")!.filter, { _id: { $in: [] } });
    const wordSubject = user("auth0|abc");
    const grant = policy.grant(wordSubject, Note, "update")!;
    assert.deepEqual([grant.filter, grant.void], [{ _id: { $in: [] } }, true]);
  });

  test("401 for anonymous, 403 for others, through RequestAccess.require", () => {
    assert.throws(() => new RequestAccess(policy, ANONYMOUS).require(Note, "show"), { status: 401 });
    assert.throws(() => new RequestAccess(policy, user("7")).require(Note, "delete"), { status: 403 });
  });

  test("fingerprints ignore what changes with each token of the same principal", () => {
    const a = { ...user("7"), claims: { sub: "7", iat: 1, exp: 2 } };
    const b = { ...user("7"), claims: { sub: "7", iat: 3, exp: 4 } };
    assert.equal(fingerprintOf(a), fingerprintOf(b));
    assert.notEqual(fingerprintOf(a), fingerprintOf(user("8")));
  });
});

describe("mistakes stop start-up with one line", () => {
  const policyOf = (access: unknown) => () =>
    new AccessPolicy(
      createRegistry([defineModel({ name: "Thing", fields: { text: string() }, access: access as never })]),
      ["admin"],
      DEFAULT_QUERY_LIMITS,
    );

  test("an unknown role, field, operation or operator", () => {
    assert.throws(
      policyOf({ editor: { read: true } }),
      /^TypeError: Model Thing: access names role "editor"; the roles are anonymous, authenticated, admin \(auth.roles declares more\)$/,
    );
    assert.throws(
      policyOf({ admin: { read: { fields: ["nope"] } } }),
      /access\.admin\.read names unknown fields: nope/,
    );
    assert.throws(
      policyOf({ admin: { browse: true } }),
      /^TypeError: Model Thing: access\.admin: unknown key "browse"/,
    );
    assert.throws(
      policyOf({ admin: { read: { where: { "text.$regex": "x" } } } }),
      /access\.admin\.read\.where: Unknown operator "\$regex"/,
    );
    assert.throws(policyOf({ admin: { read: true, paginate: true } }), /grants paginate twice/);
    assert.throws(() => principal("password"), /principal\(\) takes "subject", "roles" or a claim path/);
  });
});

describe("without auth", () => {
  const open = new AccessPolicy(registry, [], DEFAULT_QUERY_LIMITS, false);

  test("a model without rules stays open, one with rules applies its anonymous ones, other roles are inert", () => {
    assert.deepEqual(open.grant(ANONYMOUS, Closed, "delete")!.filter, {}, "no access: open to all, as before auth");
    assert.deepEqual(Object.keys(open.grant(ANONYMOUS, Note, "paginate")!.filter), ["text"], "its anonymous rule");
    assert.equal(open.grant(ANONYMOUS, Note, "show"), null, "no anonymous rule for it");
    const Other = defineModel({ name: "Other", fields: { text: string() }, access: { editor: { all: true } } });
    assert.doesNotThrow(() => new AccessPolicy(createRegistry([Other]), [], DEFAULT_QUERY_LIMITS, false));
  });
});
