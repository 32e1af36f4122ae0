/**
 * Mistakes in a project's model files stop start-up with one line that names the file, the
 * model and the field: a field that is no struct, a model without fields, a syntax error, an
 * import that does not resolve, one model defined in two files.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { string } from "superstruct";
import { loadModels } from "../../src/cli.ts";
import { defineModel } from "../../src/mod.ts";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const HEADER = `import { string } from "${repo}node_modules/superstruct/dist/index.mjs";
import { defineModel } from "${repo}src/mod.ts";
`;

describe("a field that is not a struct names the model and the field", () => {
  const cases: [string, unknown, RegExp][] = [
    [
      "the function, not called",
      string,
      /^Model Post: field "title" got the function string, not a struct: call it \(string\(\)\)$/,
    ],
    ["a type name", "string", /^Model Post: field "title" got the string "string": write a struct such as string\(\)$/],
    ["a Mongoose-style object", { type: String }, /^Model Post: field "title" got a plain object .*string\(\)$/],
    ["nothing", undefined, /^Model Post: field "title" got undefined/],
  ];
  for (const [what, value, message] of cases) {
    test(what, () => {
      assert.throws(() => defineModel({ name: "Post", fields: { title: value as never } }), (error: Error) => {
        assert.ok(error instanceof TypeError);
        assert.match(error.message, message);
        return true;
      });
    });
  }

  test("a model without fields says so", () => {
    assert.throws(() => defineModel({ name: "Empty", fields: {} }), /^TypeError: Model Empty: fields is empty;/);
  });
});

describe("a models folder whose files cannot be loaded", () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), "mongorest-models-"));
    // As a project's package.json says: ES modules (tsx would otherwise compile the files to CommonJS).
    await writeFile(join(root, "package.json"), '{ "type": "module" }\n');
  });
  after(async () => await rm(root, { recursive: true, force: true }));

  async function folder(name: string, files: Record<string, string>): Promise<string> {
    const dir = join(root, name);
    await mkdir(dir);
    for (const [file, text] of Object.entries(files)) await writeFile(join(dir, file), HEADER + text);
    return dir;
  }

  async function refusal(dir: string): Promise<string> {
    const error = await loadModels(dir).then(() => assert.fail("loaded"), (error: unknown) => error);
    assert.ok(error instanceof TypeError, String(error));
    assert.equal(error.message.includes("\n"), false, error.message);
    return error.message;
  }

  test("a syntax error is one line with the file, line and column", async () => {
    const dir = await folder("syntax", {
      "Post.ts": 'export default defineModel({ name: "Post", fields: { title: string() } ;\n',
    });
    assert.match(await refusal(dir), /Post\.ts cannot be loaded: SyntaxError: .* \(line 3, column \d+\)$/);
  });

  test("an import that names nothing there is one line with the file", async () => {
    const dir = await folder("import", {
      "Post.ts": `import { strin } from "${repo}node_modules/superstruct/dist/index.mjs";
export default defineModel({ name: "Post", fields: { title: strin() } });\n`,
    });
    assert.match(await refusal(dir), /Post\.ts cannot be loaded: SyntaxError: .*strin/);
  });

  test("a definition mistake names the file too", async () => {
    const dir = await folder("field", {
      "Post.ts": 'export default defineModel({ name: "Post", fields: { title: string } });\n',
    });
    assert.match(await refusal(dir), /Post\.ts: Model Post: field "title" got the function string/);
  });

  test("one model in two files names both", async () => {
    const model = 'export default defineModel({ name: "Author", fields: { name: string() } });\n';
    const dir = await folder("twice", { "Author.ts": model, "Writer.ts": model });
    assert.match(
      await refusal(dir),
      /^Model Author is defined twice, in .*Author\.ts and in .*Writer\.ts; rename one$/,
    );
  });
});
