import { CommandError } from "../errors.ts";

/**
 * MongoDB's regular expressions (PCRE) as JavaScript RegExps.
 *
 * Three things stand between a MongoDB regex and a JS one:
 * - Options. MongoDB takes `i`, `m`, `s`, `x` and `u`; JS has no `x` (extended: whitespace and
 *   `#` comments ignored) and `new RegExp(p, "x")` throws.
 * - The bson library's decoding. It turns a BSON regex's `s` (dot matches newline) into JS's
 *   `g` (global) and drops `x`. A `g` RegExp is stateful: `test` and `exec` resume from the
 *   last match, so one regex tested against several documents skipped matches.
 * - PCRE syntax JS lacks: `\A`, `\z`, `\Z`, `\Q…\E`, POSIX classes such as `[[:alpha:]]`,
 *   `(?P<name>…)`, leading `(?i)` flags and the `(*UTF8)` start option. These are rewritten;
 *   what cannot be (possessive quantifiers, atomic groups, `(*UCP)`…) fails to compile and is
 *   refused rather than matched differently.
 *
 * Patterns compile with JS's `u` flag when they can (PCRE in MongoDB is in UTF-8 mode: `.`
 * matches a whole code point, `\p{…}` works), and without it when `u`'s stricter syntax
 * refuses them.
 */

/** The options MongoDB accepts on a regex. */
const OPTIONS = new Set(["i", "m", "s", "x", "u"]);

/** POSIX classes, as the ASCII ranges PCRE gives them without `(*UCP)`. */
const POSIX_CLASSES: Record<string, string> = {
  alpha: "a-zA-Z",
  digit: "0-9",
  alnum: "a-zA-Z0-9",
  upper: "A-Z",
  lower: "a-z",
  space: "\\t\\n\\v\\f\\r ",
  blank: " \\t",
  punct: "!-\\/:-@\\[-`{-~",
  xdigit: "0-9A-Fa-f",
  word: "\\w",
  cntrl: "\\x00-\\x1f\\x7f",
  graph: "!-~",
  print: " -~",
  ascii: "\\x00-\\x7f",
};

/** PCRE's whitespace in extended mode. */
const EXTENDED_SPACE = new Set([" ", "\t", "\n", "\v", "\f", "\r"]);

/** A pattern JS cannot compile, with the reason. */
export class RegexSyntaxError extends Error {}

/** Where a pattern is read: its text, the position, and whether it is in extended mode. */
interface Reader {
  pattern: string;
  i: number;
  extended: boolean;
}

function escapeLiteral(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");
}

/** Translates an escape at `r.i` (a backslash); returns its JS form. */
function translateEscape(r: Reader, inClass: boolean): string {
  const next = r.pattern[r.i + 1];
  if (next === undefined) throw new RegexSyntaxError("\\ at end of pattern");
  r.i += 2;
  if (next === "Q") {
    const end = r.pattern.indexOf("\\E", r.i);
    const literal = end < 0 ? r.pattern.slice(r.i) : r.pattern.slice(r.i, end);
    r.i = end < 0 ? r.pattern.length : end + 2;
    return escapeLiteral(literal);
  }
  if (next === "E") return "";
  if (!inClass && next === "A") return "(?<![\\s\\S])";
  if (!inClass && next === "z") return "(?![\\s\\S])";
  if (!inClass && next === "Z") return "(?=\\n?(?![\\s\\S]))";
  if (next === "p" || next === "P") return unicodeProperty(r, next);
  return `\\${next}`;
}

/**
 * `\p{…}`/`\P{…}` after its letter: PCRE takes a script name alone (`\p{Latin}`) and a
 * one-letter category without braces (`\pL`); JS wants `\p{Script=Latin}` and `\p{L}`.
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
  const bare = negated ? name.slice(1) : name;
  const kind = negated ? (letter === "p" ? "P" : "p") : letter;
  return `\\${kind}{${isPropertyName(bare) ? bare : `Script=${bare}`}}`;
}

function isPropertyName(name: string): boolean {
  try {
    new RegExp(`\\p{${name}}`, "u");
    return true;
  } catch {
    return false;
  }
}

/** Translates a character class starting at `r.i` (an opening bracket). */
function translateClass(r: Reader): string {
  const { pattern } = r;
  let out = "[";
  r.i++;
  if (pattern[r.i] === "^") {
    out += "^";
    r.i++;
  }
  // A `]` first in a class is a literal in PCRE; JS would read `[]` as the empty class.
  if (pattern[r.i] === "]") {
    out += "\\]";
    r.i++;
  }
  while (r.i < pattern.length) {
    const c = pattern[r.i];
    if (c === "]") {
      r.i++;
      return out + "]";
    }
    if (c === "\\") out += translateEscape(r, true);
    else if (c === "[" && pattern[r.i + 1] === ":") out += posixClass(r);
    else {
      out += c === "[" ? "\\[" : c;
      r.i++;
    }
  }
  throw new RegexSyntaxError("missing terminating ] for character class");
}

function posixClass(r: Reader): string {
  const end = r.pattern.indexOf(":]", r.i + 2);
  const name = end < 0 ? "" : r.pattern.slice(r.i + 2, end);
  const range = POSIX_CLASSES[name];
  if (range === undefined) {
    throw new RegexSyntaxError(`unknown or negated POSIX class name [:${name}:]`);
  }
  r.i = end + 2;
  return range;
}

/** Leading `(*UTF8)`/`(*UTF)` (no-ops: MongoDB's patterns are always UTF-8) and `(?imsx)` flags. */
function leadingOptions(r: Reader, flags: Set<string>): void {
  for (;;) {
    const rest = r.pattern.slice(r.i);
    const verb = /^\(\*UTF8?\)/.exec(rest);
    const inline = /^\(\?([imsx]+)\)/.exec(rest);
    const found = verb ?? inline;
    if (!found) return;
    if (inline) { for (const flag of inline[1]) flags.add(flag); }
    r.i += found[0].length;
  }
}

/** The JS source of a PCRE pattern, and the flags it carries. */
function translate(pattern: string, options: Set<string>): string {
  const r: Reader = { pattern, i: 0, extended: false };
  leadingOptions(r, options);
  r.extended = options.has("x");
  let out = "";
  while (r.i < pattern.length) {
    const c = pattern[r.i];
    if (c === "\\") out += translateEscape(r, false);
    else if (c === "[") out += translateClass(r);
    else if (r.extended && EXTENDED_SPACE.has(c)) r.i++;
    else if (r.extended && c === "#") {
      const newline = pattern.indexOf("\n", r.i);
      r.i = newline < 0 ? pattern.length : newline + 1;
    } else if (pattern.startsWith("(?P<", r.i)) {
      out += "(?<";
      r.i += 4;
    } else if (pattern.startsWith("(?P=", r.i)) {
      const end = pattern.indexOf(")", r.i);
      if (end < 0) throw new RegexSyntaxError("missing ) after (?P=name");
      out += `\\k<${pattern.slice(r.i + 4, end)}>`;
      r.i = end + 1;
    } else {
      out += c;
      r.i++;
    }
  }
  return out;
}

/** Checks MongoDB regex options; `prefix` names the expression in the message, if any. */
export function checkRegexOptions(options: string, prefix = ""): void {
  for (const flag of options) {
    if (!OPTIONS.has(flag)) {
      throw new CommandError("Location51108", `${prefix}invalid flag in regex options: ${flag}`);
    }
  }
}

const compiled = new Map<string, RegExp>();
const CACHE_LIMIT = 256;

/**
 * Compiles a MongoDB regex. Throws CommandError 51108 for an unknown option and
 * RegexSyntaxError for a pattern that cannot be compiled. Compiled regexes are cached and never
 * global, so sharing them is safe.
 */
export function compileMongoRegex(pattern: string, options: string): RegExp {
  const key = `${options}/${pattern}`;
  const cached = compiled.get(key);
  if (cached) return cached;
  checkRegexOptions(options);
  const flagSet = new Set(options);
  const source = translate(pattern, flagSet);
  const flags = ["i", "m", "s"].filter((flag) => flagSet.has(flag)).join("");
  let regex: RegExp;
  try {
    regex = new RegExp(source, flags + "u");
  } catch {
    try {
      regex = new RegExp(source, flags);
    } catch (error) {
      throw new RegexSyntaxError(error instanceof Error ? error.message : String(error));
    }
  }
  if (compiled.size >= CACHE_LIMIT) compiled.clear();
  compiled.set(key, regex);
  return regex;
}

/**
 * The MongoDB options of a RegExp decoded from BSON by the bson library, which maps the BSON
 * option `s` to the JS flag `g` (and keeps `i` and `m`).
 */
export function decodedRegexOptions(regex: RegExp): string {
  let options = "";
  if (regex.ignoreCase) options += "i";
  if (regex.multiline) options += "m";
  if (regex.global || regex.dotAll) options += "s";
  return options;
}

/** A RegExp decoded from BSON, compiled as MongoDB reads it (`s` as dot-all, and never stateful). */
export function queryRegex(regex: RegExp): RegExp {
  try {
    return compileMongoRegex(regex.source, decodedRegexOptions(regex));
  } catch (error) {
    if (error instanceof RegexSyntaxError) {
      throw new CommandError("Location51091", `Regular expression is invalid: ${error.message}`);
    }
    throw error;
  }
}
