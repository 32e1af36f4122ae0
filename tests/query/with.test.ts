import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ApiError } from "../../src/errors.ts";
import { childKeys, parentKeys, parseWith, type WithNode } from "../../src/query/with.ts";
import { parseWithSyntax } from "../../src/query/with-syntax.ts";
import { limits, registry, User } from "./models.ts";

/** A readable shape of the tree: "relation(Model)[fields]{children}". */
function shape(nodes: readonly WithNode[]): string {
  return nodes
    .map((n) =>
      `${n.relation.name}(${n.model.name})${n.fields ? `[${n.fields.join(",")}]` : ""}${
        n.children.length ? `{${shape(n.children)}}` : ""
      }`
    )
    .join(" ");
}

const parse = (raw: string | null, lim = limits) => parseWith(raw, User, registry, lim);

function rejects(raw: string, message: RegExp, lim = limits): void {
  assert.throws(() => parse(raw, lim), (error: unknown) => {
    assert.ok(error instanceof ApiError, `expected ApiError, got ${error}`);
    assert.equal(error.status, 400);
    assert.match(error.message, message);
    return true;
  });
}

describe("parseWith", () => {
  const cases: [string | null, string][] = [
    [null, ""],
    ["", ""],
    ["posts", "posts(Post)"],
    ["posts{title|body}", "posts(Post)[title,body]"],
    ["posts{title,body}", "posts(Post)[title,body]"],
    ["posts{title|comments{content}},team{name}", "posts(Post)[title]{comments(Comment)[content]} team(Team)[name]"],
    ["posts{comments}", "posts(Post){comments(Comment)}"],
    ["posts{title},", "posts(Post)[title]"],
    ["posts,profile,team,", "posts(Post) profile(Profile) team(Team)"],
    ["posts|team", "posts(Post) team(Team)"],
    ["posts{title,}", "posts(Post)[title]"],
    ["posts{ title | body }", "posts(Post)[title,body]"],
    [" posts , team ", "posts(Post) team(Team)"],
    ["posts{title|title|id}", "posts(Post)[title,id]"],
    ["posts{user_id|created_at}", "posts(Post)[user_id,created_at]"],
    ["posts{comments{likes{stars}}}", "posts(Post){comments(Comment){likes(Like)[stars]}}"],
    ["posts{user{team}}", "posts(Post){user(User){team(Team)}}"],
    ["team{members{name}}", "team(Team){members(User)[name]}"],
  ];
  for (const [raw, expected] of cases) test(JSON.stringify(raw), () => assert.equal(shape(parse(raw)), expected));

  test("nodes carry the resolved relation and model", () => {
    const [posts] = parse("posts{title}");
    assert.deepEqual(posts.relation, { type: "hasMany", model: "Post", foreignKey: "user_id", name: "posts" });
    assert.equal(posts.model, registry.get("Post"));
  });
});

describe("parseWith: rejected input", () => {
  const cases: [string, RegExp][] = [
    ["friends", /^Undefined relation: friends$/],
    ["name", /^Undefined relation: name$/],
    ["posts{title},friends", /^Undefined relation: friends$/],
    ["posts{nope{x}}", /^Undefined relation: posts.nope$/],
    ["posts{title{x}}", /^Undefined relation: posts.title$/],
    ["posts{nope}", /^Undefined column names: nope$/],
    ["posts{secret}", /^Undefined column names: secret$/],
    ["posts{title|secret|nope},team{zip}", /^Undefined column names: secret,nope,zip$/],
    ["team{members{password}}", /^Undefined column names: password$/],
    ["posts{", /Malformed with at position 6: unbalanced braces, a } is missing/],
    ["posts{title", /unbalanced braces, a } is missing/],
    ["posts}", /Malformed with at position 5: unbalanced braces, unexpected }/],
    ["posts{title}}", /unbalanced braces, unexpected }/],
    ["posts{}", /empty list in posts\{\}/],
    ["posts{,}", /Malformed with at position 6: empty name/],
    [",", /empty name/],
    [",posts", /Malformed with at position 0: empty name/],
    ["posts,,team", /empty name/],
    ["posts{title||body}", /empty name/],
    ["{title}", /Malformed with at position 0: unexpected "\{"/],
    ["posts team", /unexpected "t", expected , or \|/],
    ["posts{title}team", /unexpected "t"/],
    ["po-sts", /unexpected "-"/],
    ["posts.comments", /unexpected "."/],
    ["posts,posts{title}", /Relation "posts" appears twice in with/],
    ["posts{comments,comments}", /Relation "posts.comments" appears twice/],
    ["__proto__", /Undefined relation: __proto__/],
    ["constructor{x}", /Undefined relation: constructor/],
  ];
  for (const [raw, message] of cases) test(raw, () => rejects(raw, message));
});

describe("parseWith: limits", () => {
  test("relation depth 3 passes, 4 is refused whether or not the 4th level has braces", () => {
    assert.equal(shape(parse("posts{comments{likes}}")), "posts(Post){comments(Comment){likes(Like)}}");
    rejects(
      "posts{comments{likes{comment}}}",
      /relation depth of with \(at posts.comments.likes.comment\) exceeds the limit of 3/,
    );
    rejects("posts{comments{likes{comment{content}}}}", /relation depth of with \(at comment\) exceeds the limit of 3/);
  });
  test("a deep run of braces is refused early, not a stack overflow", () => {
    rejects("posts{".repeat(50_000) + "}".repeat(50_000), /relation depth of with/);
  });
  test("the total number of relation nodes is capped", () => {
    const ten = "posts{comments{likes},user{team,profile}},profile,team{members{posts}}";
    assert.equal(shape(parse(ten)).split("(").length - 1, 10);
    rejects(
      "posts{comments{likes},user{team,profile,posts}},profile,team{members{posts}}",
      /number of relations in with exceeds the limit of 10/,
    );
  });
  test("limits are configurable", () => {
    const tight = { ...limits, maxRelationDepth: 1, maxRelations: 2 };
    assert.equal(shape(parse("posts{title},team", tight)), "posts(Post)[title] team(Team)");
    rejects("posts{comments}", /relation depth of with \(at posts.comments\) exceeds the limit of 1/, tight);
    rejects("posts,team,profile", /number of relations in with exceeds the limit of 2/, tight);
  });
});

describe("parentKeys and childKeys", () => {
  test("hasMany and hasOne need the parent's id, belongsTo its foreign key", () => {
    assert.deepEqual(parentKeys(parse("posts,profile,team")), ["id", "team_id"]);
    assert.deepEqual(parentKeys([]), []);
  });
  test("a child query fetches its join key and its own children's keys", () => {
    const [posts] = parse("posts{title|comments,user}");
    assert.deepEqual(childKeys(posts), ["user_id", "id"]);
    const [team] = parse("team{name}");
    assert.deepEqual(childKeys(team), ["id"]);
  });
});

describe("parseWithSyntax", () => {
  test("is independent of any model", () => {
    assert.deepEqual(parseWithSyntax("a{b|c{d}},e,", 3), [
      { name: "a", braces: [{ name: "b", braces: null }, { name: "c", braces: [{ name: "d", braces: null }] }] },
      { name: "e", braces: null },
    ]);
  });
});
