import { nameTable } from "../field-names.ts";

/**
 * PCRE escapes (`\s`, `\h`, `\x{…}`, `\g{…}`, `\p{Latin}`, `\Q…\E`…) as JavaScript writes them in
 * Unicode mode; see regex-syntax.ts for the whole translation.
 */

/** A pattern JS cannot compile, with the reason. */
export class RegexSyntaxError extends Error {}

const SYNTAX_CHARACTERS = new Set([..."^$\\.*+?()[]{}|/"]);

/** Ranges (for use inside a class) of PCRE's character types that JS spells differently. */
export const SPACE = "\\t\\n\\v\\f\\r ";
const HORIZONTAL_SPACE = "\\t \\xa0\\u1680\\u180e\\u2000-\\u200a\\u202f\\u205f\\u3000";
const VERTICAL_SPACE = "\\n\\v\\f\\r\\x85\\u2028\\u2029";

/** PCRE's own property names, as JS properties. */
const PCRE_PROPERTIES: Readonly<Record<string, string>> = nameTable({ "L&": "LC" });

/** The flags that change how a pattern is read. */
export interface SyntaxFlags {
  multiline: boolean;
  dotAll: boolean;
  extended: boolean;
}

/** Where a pattern is read. */
export interface Reader {
  readonly pattern: string;
  i: number;
  readonly flags: SyntaxFlags;
}

/** A code point as JS source: itself, escaped when it is a syntax character (or `-` in a class). */
export function literal(code: number, inClass: boolean): string {
  const c = String.fromCodePoint(code);
  if (SYNTAX_CHARACTERS.has(c) || (inClass && c === "-")) return `\\${c}`;
  if (code < 0x20 || code === 0x7f) return `\\x${code.toString(16).padStart(2, "0")}`;
  return c;
}

function literalText(text: string, inClass: boolean): string {
  let out = "";
  for (const c of text) out += literal(c.codePointAt(0)!, inClass);
  return out;
}

/** Reads hexadecimal or octal digits at `r.i` (at most `max`) as a number. */
function digits(r: Reader, radix: number, max: number): number {
  const valid = radix === 16 ? /[0-9a-fA-F]/ : /[0-7]/;
  let text = "";
  while (text.length < max && r.i < r.pattern.length && valid.test(r.pattern[r.i])) text += r.pattern[r.i++];
  return text === "" ? 0 : parseInt(text, radix);
}

/** `\x{…}` or `\xHH` (one or two digits), after the `x`. */
function hexEscape(r: Reader, inClass: boolean): string {
  if (r.pattern[r.i] !== "{") return literal(digits(r, 16, 2), inClass);
  const end = r.pattern.indexOf("}", r.i);
  const code = end < 0 ? NaN : parseInt(r.pattern.slice(r.i + 1, end), 16);
  if (!(code >= 0 && code <= 0x10ffff)) throw new RegexSyntaxError("malformed \\x{…} escape");
  r.i = end + 1;
  return literal(code, inClass);
}

/** `\g1`, `\g{1}`, `\g{-1}`, `\g{name}` and `\k{name}`/`\k'name'`/`\k<name>`, after the letter. */
function backReference(r: Reader, letter: "g" | "k", groupsBefore: number): string {
  const open = r.pattern[r.i];
  const close = open === "{" ? "}" : open === "'" ? "'" : open === "<" ? ">" : undefined;
  let name: string;
  if (close === undefined) {
    if (letter === "k") throw new RegexSyntaxError("\\k is not followed by a name");
    name = /^-?\d+/.exec(r.pattern.slice(r.i))?.[0] ?? "";
    r.i += name.length;
  } else {
    const end = r.pattern.indexOf(close, r.i + 1);
    if (end < 0) throw new RegexSyntaxError(`\\${letter} is not terminated`);
    name = r.pattern.slice(r.i + 1, end);
    r.i = end + 1;
  }
  if (/^-\d+$/.test(name)) return `(?:\\${groupsBefore + 1 + Number(name)})`;
  if (/^\d+$/.test(name)) return `(?:\\${Number(name)})`;
  if (/^[A-Za-z_]\w*$/.test(name)) return `\\k<${name}>`;
  throw new RegexSyntaxError(`\\${letter} is not followed by a group number or name`);
}

/**
 * `\p{…}`/`\P{…}`/`\pL` after its letter: PCRE takes a script name alone (`\p{Latin}`), JS
 * wants `\p{Script=Latin}`. A name JS knows neither way is refused.
 */
function unicodeProperty(r: Reader, letter: string): string {
  let name: string;
  if (r.pattern[r.i] === "{") {
    const end = r.pattern.indexOf("}", r.i);
    if (end < 0) throw new RegexSyntaxError("malformed \\p or \\P sequence");
    name = r.pattern.slice(r.i + 1, end);
    r.i = end + 1;
  } else {
    name = r.pattern[r.i] ?? "";
    r.i++;
  }
  const negated = name.startsWith("^");
  const bare = PCRE_PROPERTIES[negated ? name.slice(1) : name] ?? (negated ? name.slice(1) : name);
  const kind = negated === (letter === "p") ? "P" : "p";
  for (const candidate of [bare, `Script=${bare}`]) {
    if (isProperty(candidate)) return `\\${kind}{${candidate}}`;
  }
  throw new RegexSyntaxError(`unknown property name after \\${letter}: ${name}`);
}

function isProperty(name: string): boolean {
  try {
    new RegExp(`\\p{${name}}`, "u");
    return true;
  } catch {
    return false;
  }
}

/** An escape inside a class or out of it, after its backslash; `groups` counts the groups opened so far. */
export function translateEscape(r: Reader, inClass: boolean, groups: number): string {
  const next = r.pattern[r.i + 1];
  if (next === undefined) throw new RegexSyntaxError("\\ at end of pattern");
  r.i += 2;
  if (!/[0-9A-Za-z]/.test(next)) return literal(next.codePointAt(0)!, inClass);
  switch (next) {
    case "d":
    case "D":
    case "w":
    case "W":
    case "t":
    case "n":
    case "r":
    case "f":
      return `\\${next}`;
    case "c":
      return `\\c${r.pattern[r.i++] ?? ""}`;
    case "s":
      return inClass ? SPACE : `[${SPACE}]`;
    case "S":
      return inClass ? "\\S" : `[^${SPACE}]`;
    case "h":
      return inClass ? HORIZONTAL_SPACE : `[${HORIZONTAL_SPACE}]`;
    case "v":
      return inClass ? VERTICAL_SPACE : `[${VERTICAL_SPACE}]`;
    case "a":
      return "\\x07";
    case "e":
      return "\\x1b";
    case "x":
      return hexEscape(r, inClass);
    case "0":
      return literal(digits(r, 8, 2), inClass);
    case "p":
    case "P":
      return unicodeProperty(r, next);
    case "Q":
      return quoted(r, inClass);
    case "E":
      return "";
  }
  if (inClass) {
    if (next === "b") return "\\x08";
    throw new RegexSyntaxError(`\\${next} is not supported in a character class`);
  }
  return escapeOutsideClass(r, next, groups);
}

function escapeOutsideClass(r: Reader, next: string, groups: number): string {
  switch (next) {
    case "b":
    case "B":
      return `\\${next}`;
    case "A":
      return "(?<![\\s\\S])";
    case "z":
      return "(?![\\s\\S])";
    case "Z":
      return "(?=\\n?(?![\\s\\S]))";
    case "H":
      return `[^${HORIZONTAL_SPACE}]`;
    case "V":
      return `[^${VERTICAL_SPACE}]`;
    case "R":
      return `(?:\\r\\n|[${VERTICAL_SPACE}])`;
    case "N":
      return "[^\\n]";
    case "g":
    case "k":
      return backReference(r, next, groups);
  }
  if (/[1-9]/.test(next)) {
    const more = /^\d*/.exec(r.pattern.slice(r.i))![0];
    r.i += more.length;
    return `(?:\\${next}${more})`;
  }
  throw new RegexSyntaxError(`\\${next} is not supported`);
}

/** `\Q…\E`: everything up to `\E` (or the end) as literal text. */
function quoted(r: Reader, inClass: boolean): string {
  const end = r.pattern.indexOf("\\E", r.i);
  const text = end < 0 ? r.pattern.slice(r.i) : r.pattern.slice(r.i, end);
  r.i = end < 0 ? r.pattern.length : end + 2;
  return literalText(text, inClass);
}
