import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

// The house rule: functions stay short. The embedded engine is a subsystem of its own, with its
// own reviews, so it is left out; everything else under src/ is held to it.
const LONGEST = 60;
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SRC = join(ROOT, "src");
const EXEMPT = join(SRC, "embedded");

/** A function and where it is: what the failure names. */
interface Found {
  where: string;
  lines: number;
}

function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (path !== EXEMPT) files.push(...sourceFiles(path));
    } else if (entry.name.endsWith(".ts")) files.push(path);
  }
  return files.sort();
}

/** What a function is called in the failure: its own name, or the name it is assigned to. */
function nameOf(node: ts.FunctionLikeDeclaration, file: ts.SourceFile): string {
  if (node.name !== undefined) return node.name.getText(file);
  if (ts.isConstructorDeclaration(node)) return "constructor";
  const parent = node.parent;
  if (
    parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
  ) {
    return parent.name.getText(file);
  }
  return "(anonymous)";
}

/** Every function of one file (declarations, methods, accessors, arrows, expressions) and its length in lines. */
function functionLengths(path: string, text: string): Found[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: Found[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
      const declaration = node as ts.FunctionLikeDeclaration;
      // From the first line of the function itself (its doc comment left out) to its last.
      const first = file.getLineAndCharacterOfPosition(declaration.getStart(file)).line;
      const last = file.getLineAndCharacterOfPosition(declaration.getEnd()).line;
      found.push({ where: `${path}:${first + 1} ${nameOf(declaration, file)}`, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe("function length", () => {
  test("counts a function's lines from its first to its last, nested ones on their own", () => {
    const text = [
      "/** Doc lines do not count. */",
      "export function outer(): () => number {",
      "  const inner = () => {",
      "    return 1;",
      "  };",
      "  return inner;",
      "}",
      "class Box {",
      "  get size(): number {",
      "    return 1;",
      "  }",
      "}",
    ].join("\n");
    assert.deepEqual(functionLengths("x.ts", text), [
      { where: "x.ts:2 outer", lines: 6 },
      { where: "x.ts:3 inner", lines: 3 },
      { where: "x.ts:9 size", lines: 3 },
    ]);
  });

  test(`no function in src/ outside src/embedded/ has more than ${LONGEST} lines`, () => {
    const files = sourceFiles(SRC);
    assert.ok(files.length > 50, `found only ${files.length} files under ${SRC}`);
    const long = files.flatMap((path) => functionLengths(relative(ROOT, path), readFileSync(path, "utf8")))
      .filter(({ lines }) => lines > LONGEST)
      .map(({ where, lines }) => `${where} (${lines} lines)`);
    assert.deepEqual(long, [], `split these into functions of at most ${LONGEST} lines:\n${long.join("\n")}`);
  });
});
