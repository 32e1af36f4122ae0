import type { Document } from "bson";
import { isPlainObject, toNumber } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { compareStrings } from "./strings.ts";

/** Orders two strings; the rest of BSON order is unchanged by a collation. */
export type StringCompare = (a: string, b: string) => number;

/**
 * A collation the engine applies: its normalised spec (as listIndexes and listCollections show
 * it), a key that is equal for equal collations, and the string order it stands for.
 */
export interface Collation {
  readonly spec: Readonly<Document>;
  readonly key: string;
  readonly compare: StringCompare;
}

const KNOWN_FIELDS = new Set([
  "locale",
  "strength",
  "caseLevel",
  "caseFirst",
  "numericOrdering",
  "alternate",
  "maxVariable",
  "normalization",
  "backwards",
  "version",
]);

function badValue(message: string): CommandError {
  return new CommandError("BadValue", message);
}

function shown(raw: Document): string {
  return JSON.stringify(raw).replace(/"(\w+)":/g, "$1: ").replace(/,/g, ", ");
}

/** MongoDB's ICU locale name (`en_US`, `de@collation=phonebook`) as a BCP 47 tag. */
function bcp47(locale: string): string {
  const [base, keyword] = locale.split("@");
  const tag = base.replace(/_/g, "-");
  const co = /^collation=(\w+)$/.exec(keyword ?? "");
  return co ? `${tag}-u-co-${co[1]}` : tag;
}

function supported(locale: string): boolean {
  if (!/^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8})*(@collation=\w+)?$/.test(locale)) return false;
  try {
    const tag = bcp47(locale);
    const found = Intl.Collator.supportedLocalesOf([tag]);
    if (found.length === 0) return false;
    // ICU falls back silently ("xx" to the root locale); accept only a locale it resolved to itself.
    return new Intl.Collator(tag).resolvedOptions().locale.split("-")[0] === tag.split("-")[0].toLowerCase();
  } catch {
    return false;
  }
}

function choice<T>(raw: Document, field: string, allowed: readonly T[], fallback: T): T {
  const v = raw[field];
  if (v === undefined) return fallback;
  const value = (typeof v === "number" || typeof v === "object" ? toNumber(v) : v) as T;
  if (!allowed.includes(value)) {
    throw badValue(`Enumeration value '${String(v)}' for field 'collation.${field}' is not a valid value.`);
  }
  return value;
}

function flag(raw: Document, field: string): boolean {
  const v = raw[field];
  if (v === undefined) return false;
  if (typeof v !== "boolean") {
    throw new CommandError(
      "TypeMismatch",
      `BSON field 'collation.${field}' is the wrong type '${typeof v}', expected type 'bool'`,
    );
  }
  return v;
}

/** Checks a raw collation document and fills in MongoDB's defaults. */
function normalise(raw: Document): Document {
  for (const field of Object.keys(raw)) {
    if (!KNOWN_FIELDS.has(field)) {
      throw new CommandError("Location40415", `BSON field 'collation.${field}' is an unknown field.`);
    }
  }
  const locale = raw.locale;
  if (typeof locale !== "string") {
    throw new CommandError("FailedToParse", "BSON field 'collation.locale' is missing but a required field");
  }
  if (locale === "simple") return { locale: "simple" };
  if (!supported(locale)) throw badValue(`Field 'locale' is invalid in: ${shown(raw)}`);
  const spec: Document = {
    locale,
    caseLevel: flag(raw, "caseLevel"),
    caseFirst: choice(raw, "caseFirst", ["upper", "lower", "off"], "off"),
    strength: choice(raw, "strength", [1, 2, 3, 4, 5], 3),
    numericOrdering: flag(raw, "numericOrdering"),
    alternate: choice(raw, "alternate", ["non-ignorable", "shifted"], "non-ignorable"),
    maxVariable: choice(raw, "maxVariable", ["punct", "space"], "punct"),
    normalization: flag(raw, "normalization"),
    backwards: flag(raw, "backwards"),
  };
  refuseUnimplemented(spec);
  return spec;
}

/** Options Intl.Collator has no setting for: refused rather than ignored. */
function refuseUnimplemented(spec: Document): void {
  if (spec.backwards) throw badValue("collation option 'backwards: true' is not supported by the embedded engine");
  if (spec.strength === 4) throw badValue("collation strength 4 (quaternary) is not supported by the embedded engine");
  if (spec.alternate === "shifted" && spec.maxVariable === "space") {
    throw badValue("collation option 'maxVariable: \"space\"' is not supported by the embedded engine");
  }
}

function sensitivity(spec: Document): Intl.CollatorOptions["sensitivity"] {
  if (spec.strength === 1) return spec.caseLevel ? "case" : "base";
  if (spec.strength === 2) return spec.caseLevel ? "variant" : "accent";
  return "variant";
}

function comparer(spec: Document): StringCompare {
  const collator = new Intl.Collator(bcp47(spec.locale), {
    usage: "sort",
    sensitivity: sensitivity(spec),
    numeric: spec.numericOrdering === true,
    caseFirst: spec.caseFirst === "off" ? "false" : spec.caseFirst,
    ignorePunctuation: spec.alternate === "shifted",
  });
  const compare = collator.compare;
  if (spec.strength !== 5) return compare;
  // Identical strength: equal under the collator, then by code points.
  return (a, b) => compare(a, b) || compareStrings(a, b);
}

const cache = new Map<string, Collation | undefined>();

/**
 * The collation a command asked for, checked like MongoDB does (code 2 for a bad value, 40415
 * for an unknown field). `undefined` (no collation, or `{locale: "simple"}`) means binary order.
 */
export function parseCollation(raw: unknown): Collation | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isPlainObject(raw)) {
    throw new CommandError("TypeMismatch", "BSON field 'collation' is the wrong type, expected type 'object'");
  }
  const spec = normalise(raw);
  if (spec.locale === "simple") return undefined;
  const key = JSON.stringify(spec);
  if (!cache.has(key)) {
    if (cache.size > 100) cache.clear();
    cache.set(key, { spec, key, compare: comparer(spec) });
  }
  return cache.get(key);
}

/** True when two collations order strings the same way (both absent: binary order). */
export function sameCollation(a: Collation | undefined, b: Collation | undefined): boolean {
  return (a?.key ?? "simple") === (b?.key ?? "simple");
}
