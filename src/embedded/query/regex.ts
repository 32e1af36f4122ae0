import { CommandError } from "../errors.ts";
import { leadingOptions, RegexSyntaxError, translatePattern } from "./regex-syntax.ts";

export { RegexSyntaxError } from "./regex-syntax.ts";

/**
 * MongoDB's regular expressions (PCRE) as JavaScript RegExps.
 *
 * Three things stand between a MongoDB regex and a JS one:
 * - Options. MongoDB takes `i`, `m`, `s`, `x` and `u`; JS has no `x` (extended: whitespace and
 *   `#` comments ignored) and `new RegExp(p, "x")` throws.
 * - The bson library's decoding. It turns a BSON regex's `s` (dot matches newline) into JS's
 *   `g` (global) and drops `x`. A `g` RegExp is stateful: `test` and `exec` resume from the
 *   last match, so one regex tested against several documents skipped matches.
 * - Syntax and meaning, rewritten by regex-syntax.ts.
 *
 * Patterns compile in JS's Unicode mode (PCRE in MongoDB is in UTF-8 mode: `.` matches a whole
 * code point). A pattern Unicode mode still refuses is compiled without it, unless it uses
 * `\p{…}`, which would then mean the letters "p{…}".
 */

/** The options MongoDB accepts on a regex. */
const OPTIONS = new Set(["i", "m", "s", "x", "u"]);

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
  checkRegexOptions(options);
  const key = `${options}/${pattern}`;
  const cached = compiled.get(key);
  if (cached) return cached;
  const flagSet = new Set(options);
  const start = leadingOptions(pattern, flagSet);
  const source = translatePattern(pattern, start, {
    multiline: flagSet.has("m"),
    dotAll: flagSet.has("s"),
    extended: flagSet.has("x"),
  });
  const regex = compileSource(source, flagSet.has("i") ? "i" : "");
  if (compiled.size >= CACHE_LIMIT) compiled.clear();
  compiled.set(key, regex);
  return regex;
}

function compileSource(source: string, flags: string): RegExp {
  try {
    return new RegExp(source, flags + "u");
  } catch (unicode) {
    const reason = unicode instanceof Error ? unicode.message : String(unicode);
    if (/\\[pP]\{/.test(source)) throw new RegexSyntaxError(reason);
    try {
      return new RegExp(source, flags);
    } catch {
      throw new RegexSyntaxError(reason);
    }
  }
}

const scanners = new WeakMap<RegExp, RegExp>();

/** A global copy of a compiled regex, for scanning with `lastIndex`; made once per regex. */
export function scannerOf(regex: RegExp): RegExp {
  let scanner = scanners.get(regex);
  if (scanner === undefined) scanners.set(regex, scanner = new RegExp(regex.source, regex.flags + "g"));
  return scanner;
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
