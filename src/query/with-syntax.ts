import { apiError } from "../errors.ts";
import { limitExceeded } from "./limits.ts";
import { type Message, msg } from "../i18n/message.ts";

/** One name in a `with` expression, with the list inside its braces if it has any. */
export interface WithItem {
  name: string;
  /** Items between `{` and `}`; null when the name had no braces. */
  braces: WithItem[] | null;
}

const NAME_CHAR = /[A-Za-z0-9_]/;
const SEPARATORS = new Set([",", "|"]);

class Cursor {
  pos = 0;
  constructor(readonly text: string, readonly maxNesting: number) {}

  peek(): string | undefined {
    return this.text[this.pos];
  }

  skipSpaces(): void {
    while (this.peek() === " " || this.peek() === "\t") this.pos++;
  }

  fail(problem: Message): never {
    throw apiError("query.withMalformed", { position: this.pos, problem });
  }
}

function readName(cur: Cursor): string {
  const start = cur.pos;
  while (cur.pos < cur.text.length && NAME_CHAR.test(cur.text[cur.pos])) cur.pos++;
  if (cur.pos === start) {
    const found = cur.peek();
    cur.fail(
      found === undefined || SEPARATORS.has(found) || found === "}"
        ? msg("with.emptyName")
        : msg("with.unexpected", { found }),
    );
  }
  return cur.text.slice(start, cur.pos);
}

function readItem(cur: Cursor, nesting: number): WithItem {
  const name = readName(cur);
  cur.skipSpaces();
  if (cur.peek() !== "{") return { name, braces: null };
  // A brace can only follow a relation, so nesting deeper than the relation limit is
  // already a client error; checking here also bounds the recursion.
  if (nesting + 1 > cur.maxNesting) {
    limitExceeded(msg("limit.relationDepth", { path: name }), cur.maxNesting);
  }
  cur.pos++;
  const braces = readList(cur, nesting + 1);
  if (braces.length === 0) cur.fail(msg("with.emptyList", { name }));
  cur.pos++; // the closing brace readList stopped at
  return { name, braces };
}

function atListEnd(cur: Cursor, nesting: number): boolean {
  const c = cur.peek();
  if (c === undefined) {
    if (nesting > 0) cur.fail(msg("with.missingBrace"));
    return true;
  }
  if (c === "}") {
    if (nesting === 0) cur.fail(msg("with.extraBrace"));
    return true;
  }
  return false;
}

function readList(cur: Cursor, nesting: number): WithItem[] {
  const items: WithItem[] = [];
  for (;;) {
    cur.skipSpaces();
    // A separator just before the end is tolerated: Axe API's client sends `posts{title},`.
    if (atListEnd(cur, nesting)) {
      return items.length > 0 || cur.peek() === "}" ? items : cur.fail(msg("with.emptyName"));
    }
    items.push(readItem(cur, nesting));
    cur.skipSpaces();
    if (atListEnd(cur, nesting)) return items;
    const c = cur.peek() as string;
    if (!SEPARATORS.has(c)) cur.fail(msg("with.unexpectedSeparator", { found: c }));
    cur.pos++;
  }
}

/**
 * Parses the syntax of a `with` expression, without looking at any model: names, braces,
 * and `,` or `|` as separators. A trailing separator is tolerated; empty names and
 * unbalanced braces are 400s. `maxNesting` caps brace nesting (= relation depth).
 * @example parseWithSyntax("posts", 3)              // [{ name: "posts", braces: null }]
 * @example parseWithSyntax("posts{title|body},", 3)
 * // [{ name: "posts", braces: [{ name: "title", braces: null }, { name: "body", braces: null }] }]
 * @example parseWithSyntax("posts{title", 3)        // throws 400 (unbalanced braces)
 */
export function parseWithSyntax(raw: string, maxNesting: number): WithItem[] {
  const cur = new Cursor(raw, maxNesting);
  return readList(cur, 0);
}
