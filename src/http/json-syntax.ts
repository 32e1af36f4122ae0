/**
 * Where a JSON text first breaks the grammar (RFC 8259), for a 400 that points at it. Only
 * called once `JSON.parse` has refused the text, so the request path pays nothing for it. Its
 * own scan, because the engines' messages differ (V8's newer ones often give no position) and
 * are English only. Iterative, with an explicit stack, so any nesting depth and any length take
 * one linear pass.
 */

/** The first offending character (`found`, null at the end of the text) and its line and column, from 1. */
export interface JsonSyntaxProblem {
  found: string | null;
  line: number;
  column: number;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES = new Set(['"', "\\", "/", "b", "f", "n", "r", "t"]);
const HEX4 = /^[0-9a-fA-F]{4}$/;

function skipSpace(text: string, i: number): number {
  while (i < text.length && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) i++;
  return i;
}

/** The offset after the string that starts at `i` (a quote), or -(offset + 1) of the character that breaks it. */
function stringEnd(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    const c = text[j];
    if (c === '"') return j + 1;
    if (c < " ") return -(j + 1);
    if (c !== "\\") continue;
    const escape = text[++j];
    if (escape === "u") {
      if (!HEX4.test(text.slice(j + 1, j + 5))) return -(j + 1);
      j += 4;
    } else if (!ESCAPES.has(escape)) return -(j + 1);
  }
  return -(text.length + 1);
}

/** The offset after the scalar (string, number, literal) at `i`, or -(offset + 1) where it breaks. */
function scalarEnd(text: string, i: number): number {
  if (text[i] === '"') return stringEnd(text, i);
  for (const literal of ["true", "false", "null"]) if (text.startsWith(literal, i)) return i + literal.length;
  NUMBER.lastIndex = i;
  return NUMBER.test(text) ? NUMBER.lastIndex : -(i + 1);
}

type Expect = "value" | "key" | "after";

/** The offset of the first character that breaks the grammar (text.length when it ends early), or -1 if none does. */
export function jsonErrorOffset(text: string): number {
  const open: string[] = [];
  let expect: Expect = "value";
  for (let i = skipSpace(text, 0);; i = skipSpace(text, i)) {
    const c = text[i];
    if (expect === "after") {
      const top = open.at(-1);
      if (top === undefined) return i === text.length ? -1 : i;
      if (c === ",") [i, expect] = [i + 1, top === "{" ? "key" : "value"];
      else if (c === (top === "{" ? "}" : "]")) [i, expect] = [i + 1, (open.pop(), "after")];
      else return i;
    } else if (expect === "key") {
      if (c !== '"') return i;
      const end = stringEnd(text, i);
      if (end < 0) return -end - 1;
      i = skipSpace(text, end);
      if (text[i] !== ":") return i;
      [i, expect] = [i + 1, "value"];
    } else if (c === "{" || c === "[") {
      open.push(c);
      i = skipSpace(text, i + 1);
      const empty = text[i] === (c === "{" ? "}" : "]");
      if (empty) open.pop();
      [i, expect] = empty ? [i + 1, "after"] : [i, c === "{" ? "key" : "value"];
    } else {
      const end = scalarEnd(text, i);
      if (end < 0) return -end - 1;
      [i, expect] = [end, "after"];
    }
  }
}

/** The problem {@link jsonErrorOffset} finds, with its line and column, or null for valid JSON. */
export function jsonSyntaxProblem(text: string): JsonSyntaxProblem | null {
  const offset = jsonErrorOffset(text);
  if (offset === -1) return null;
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { found: offset < text.length ? text[offset] : null, line, column: offset - lineStart + 1 };
}
