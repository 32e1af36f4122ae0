import { nameTable } from "../field-names.ts";
import { type Reader, RegexSyntaxError, SPACE, type SyntaxFlags, translateEscape } from "./regex-escapes.ts";

export { RegexSyntaxError, type SyntaxFlags } from "./regex-escapes.ts";

/**
 * PCRE pattern syntax, as MongoDB reads it, rewritten into JavaScript's (in Unicode mode).
 *
 * MongoDB compiles patterns with PCRE in UTF-8 mode, newline LF, no `(*UCP)`. Where the two
 * syntaxes or meanings differ, the pattern is rewritten:
 * - `^`, `$` and `.`: PCRE's `$` also matches before a final newline, its `.` excludes only
 *   "\n", and its multi-line anchors see only "\n" as a line end; JS's see "\r", U+2028 and
 *   U+2029 too. They are written as lookarounds and classes, so the JS flags `m` and `s` are
 *   never used.
 * - `\s` is ASCII whitespace in PCRE (JS adds Unicode spaces); `\h`, `\v`, `\R`, `\N`, `\e`,
 *   `\a`, `\x{…}`, `\0oo`, `\g…` and `\k{…}` have no JS equivalent of the same spelling;
 *   `\A`, `\z`, `\Z`, `\Q…\E`, POSIX classes, `\p{Latin}`, `(?P<name>…)`, `(?#…)` and leading
 *   `(?imsx)` flags likewise.
 * - An escaped punctuation character is that character in PCRE; Unicode-mode JS refuses
 *   `\-` outside a class, `\ ` and the like. A `{`, `}` or `]` that does not form a quantifier or
 *   close a class is a literal in PCRE and an error in Unicode-mode JS.
 * What JS cannot express (`\K`, `\G`, `\X`, negated POSIX classes…) throws
 * {@link RegexSyntaxError}: refused, never matched differently.
 */

const EXTENDED_SPACE = new Set([" ", "\t", "\n", "\v", "\f", "\r"]);

/** POSIX classes, as the ASCII ranges PCRE gives them without `(*UCP)`. */
const POSIX_CLASSES: Readonly<Record<string, string>> = nameTable({
  alpha: "a-zA-Z",
  digit: "0-9",
  alnum: "a-zA-Z0-9",
  upper: "A-Z",
  lower: "a-z",
  space: SPACE,
  blank: " \\t",
  punct: "!-\\/:-@\\[-`{-~",
  xdigit: "0-9A-Fa-f",
  word: "\\w",
  cntrl: "\\x00-\\x1f\\x7f",
  graph: "!-~",
  print: " -~",
  ascii: "\\x00-\\x7f",
});
/** A character class at `r.i` (an opening bracket). */
function translateClass(r: Reader, groups: number): string {
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
    if (c === "\\") out += translateEscape(r, true, groups);
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
  if (range === undefined) throw new RegexSyntaxError(`unknown or negated POSIX class name [:${name}:]`);
  r.i = end + 2;
  return range;
}

/** Leading `(*UTF8)`/`(*UTF)` (no-ops: MongoDB's patterns are always UTF-8) and `(?imsx)` flags. */
export function leadingOptions(pattern: string, options: Set<string>): number {
  let i = 0;
  for (;;) {
    const rest = pattern.slice(i);
    const verb = /^\(\*UTF8?\)/.exec(rest);
    const inline = /^\(\?([imsx]+)\)/.exec(rest);
    const found = verb ?? inline;
    if (!found) return i;
    if (inline) { for (const flag of inline[1]) options.add(flag); }
    i += found[0].length;
  }
}

/** A `{` at `r.i` that starts a quantifier (`{2}`, `{2,}`, `{2,5}`). */
function isQuantifier(r: Reader): boolean {
  return /^\{\d+(,\d*)?\}/.test(r.pattern.slice(r.i, r.i + 24));
}

/** One element outside a class, at `r.i`; `groups` counts the groups opened before it. */
function translateElement(r: Reader, groups: number): string {
  const { pattern, flags } = r;
  const c = pattern[r.i];
  if (c === "\\") return translateEscape(r, false, groups);
  if (c === "[") return translateClass(r, groups);
  if (flags.extended && (EXTENDED_SPACE.has(c) || c === "#")) {
    const newline = c === "#" ? pattern.indexOf("\n", r.i) : r.i;
    r.i = newline < 0 ? pattern.length : newline + 1;
    return "";
  }
  if (pattern.startsWith("(?#", r.i)) {
    const end = pattern.indexOf(")", r.i);
    if (end < 0) throw new RegexSyntaxError("missing ) after (?# comment");
    r.i = end + 1;
    return "";
  }
  r.i++;
  switch (c) {
    case "^":
      return flags.multiline ? "(?:(?<![\\s\\S])|(?<=\\n)(?=[\\s\\S]))" : "^";
    case "$":
      return flags.multiline ? "(?=\\n|(?![\\s\\S]))" : "(?=\\n?(?![\\s\\S]))";
    case ".":
      return flags.dotAll ? "[\\s\\S]" : "[^\\n]";
    case "{":
      r.i--;
      if (isQuantifier(r)) {
        const end = pattern.indexOf("}", r.i);
        const quantifier = pattern.slice(r.i, end + 1);
        r.i = end + 1;
        return quantifier;
      }
      r.i++;
      return "\\{";
    case "}":
    case "]":
      return `\\${c}`;
    case "(":
      if (pattern.startsWith("?P<", r.i)) {
        r.i += 3;
        return "(?<";
      }
      if (pattern.startsWith("?P=", r.i)) {
        const end = pattern.indexOf(")", r.i);
        if (end < 0) throw new RegexSyntaxError("missing ) after (?P=name");
        const name = pattern.slice(r.i + 3, end);
        r.i = end + 1;
        return `\\k<${name}>`;
      }
      return "(";
  }
  return c;
}

/** The JS source (for Unicode mode, flags `i` at most) of a PCRE pattern read from `start`. */
export function translatePattern(pattern: string, start: number, flags: SyntaxFlags): string {
  const r: Reader = { pattern, i: start, flags };
  let out = "";
  let groups = 0;
  while (r.i < pattern.length) {
    if (pattern[r.i] === "(" && pattern[r.i + 1] !== "?" && pattern[r.i + 1] !== "*") groups++;
    else if (pattern.startsWith("(?<", r.i) || pattern.startsWith("(?P<", r.i) || pattern.startsWith("(?'", r.i)) {
      if (pattern[r.i + 3] !== "=" && pattern[r.i + 3] !== "!") groups++;
    }
    out += translateElement(r, groups);
  }
  return out;
}
