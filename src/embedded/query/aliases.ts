import type { Document } from "bson";
import {
  aliasCounter,
  aliasName,
  aliasValue,
  isHazardousName,
  isMarkedHazardous,
  unaliasText,
  unaliasValue,
} from "../field-names.ts";

/**
 * Specs (filters, expressions, pipelines, updates, projections) and documents spelled for
 * mingo: every field name a plain object already answers to (`__proto__`, `constructor`,
 * `toString`...) renamed (field-names.ts `aliasName`) wherever it names a field, in keys and
 * in the strings that are field paths (`"$a.constructor"`, `$unwind`'s `includeArrayIndex`,
 * `$lookup`'s `as`, `$rename`'s targets...), but not in data (a string `"constructor"` a filter
 * compares with stays one). mingo walks paths and builds documents with plain property access,
 * refusing `__proto__` in a path and writing through `constructor.prototype` into
 * `Object.prototype`; renamed, such names are fields to it like any other, and its results are
 * spelled back before anything else sees them. Only specs that name one are rewritten
 * ({@link needsAliases}); the common spec is handed over untouched.
 */

/** True for a string holding a hazardous name as a path component (`$a.constructor`, `__proto__.q`). */
function namesHazard(text: string): boolean {
  if (text.length < 7) return false;
  let start = 0;
  while (start < text.length && text.charCodeAt(start) === 0x24) start++; // "$" or "$$"
  for (let dot = text.indexOf(".", start);; dot = text.indexOf(".", start)) {
    const end = dot < 0 ? text.length : dot;
    if (end - start >= 7 && isHazardousName(text.slice(start, end))) return true;
    if (dot < 0) return false;
    start = dot + 1;
  }
}

/** Whether a spec (or a value a client sent) names a hazardous field anywhere, in a key or a string. */
export function needsAliases(spec: unknown): boolean {
  if (typeof spec === "string") return namesHazard(spec);
  if (Array.isArray(spec)) return spec.some(needsAliases);
  if (!isSpecObject(spec)) return false;
  for (const key in spec) if (namesHazard(key) || needsAliases(spec[key])) return true;
  return false;
}

function isSpecObject(v: unknown): v is Document {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** A dotted path with each hazardous component renamed. */
export function aliasPath(path: string): string {
  if (!namesHazard(path)) return path;
  return path.split(".").map(aliasName).join(".");
}

/** A field reference (`$a.b`, `$$var.a.b`) with its variable name and path components renamed. */
function aliasReference(text: string): string {
  if (!text.startsWith("$") || !namesHazard(text)) return text;
  if (!text.startsWith("$$")) return `$${aliasPath(text.slice(1))}`;
  return `$$${aliasPath(text.slice(2))}`;
}

/** An object whose keys are paths or names, renamed, each value passed through `value`. */
function withKeys(spec: Document, value: (v: unknown, key: string) => unknown): Document {
  const out: Document = {};
  for (const key of Object.keys(spec)) out[aliasPath(key)] = value(spec[key], key);
  return out;
}

/** Data (a document to compare with or store): hazardous keys renamed, strings untouched. */
const aliasData = aliasValue;

/** A query filter. Field keys are paths; their conditions are data but for `$expr`. */
export function aliasFilter(filter: unknown): Document {
  if (!isSpecObject(filter)) return filter as Document;
  return withKeys(filter, (value, key) => {
    if (key === "$and" || key === "$or" || key === "$nor") return Array.isArray(value) ? value.map(aliasFilter) : value;
    if (key === "$expr") return aliasExpression(value);
    // A schema is checked in the client's spelling (json-schema.ts spells documents back).
    if (key === "$jsonSchema" || key === "$comment" || key.startsWith("$")) return value;
    return aliasCondition(value);
  });
}

/** A field's condition in a filter: operators whose arguments are data, nested filters and conditions. */
function aliasCondition(condition: unknown): unknown {
  if (!isSpecObject(condition) || !Object.keys(condition).some((k) => k.startsWith("$"))) return aliasData(condition);
  return withKeys(condition, (arg, op) => {
    if (op === "$elemMatch") {
      return isSpecObject(arg) && Object.keys(arg).some((k) => k.startsWith("$") && k !== "$and" && k !== "$or")
        ? aliasCondition(arg)
        : aliasFilter(arg);
    }
    if (op === "$not") return aliasCondition(arg);
    return aliasData(arg);
  });
}

/** Operators whose named string arguments are variable names or field names, not values. */
const NAMED_ARGUMENTS = new Map<string, readonly string[]>([["$map", ["as"]], ["$filter", ["as"]]]);

/** An aggregation expression: `$`-strings are field paths or variables, object keys field names. */
export function aliasExpression(expr: unknown): unknown {
  if (typeof expr === "string") return aliasReference(expr);
  if (Array.isArray(expr)) return expr.map(aliasExpression);
  if (!isSpecObject(expr)) return expr;
  const keys = Object.keys(expr);
  if (keys.length === 1 && keys[0] === "$literal") return { $literal: aliasData(expr.$literal) };
  const named = keys.length === 1 ? NAMED_ARGUMENTS.get(keys[0]) : undefined;
  if (named && isSpecObject(expr[keys[0]])) {
    const args = expr[keys[0]] as Document;
    return {
      [keys[0]]: withKeys(
        args,
        (v, k) => named.includes(k) && typeof v === "string" ? aliasName(v) : aliasExpression(v),
      ),
    };
  }
  return withKeys(expr, aliasExpression);
}

/** String arguments of stages that name a field (a path), by stage. */
const FIELD_ARGUMENTS = new Map<string, readonly string[]>([
  ["$unwind", ["includeArrayIndex"]],
  ["$lookup", ["localField", "foreignField", "as"]],
  ["$graphLookup", ["connectFromField", "connectToField", "as", "depthField"]],
  ["$densify", ["field", "partitionByFields"]],
  ["$fill", ["partitionByFields"]],
  ["$merge", ["on"]],
]);

/** Stage arguments that hold a filter, a pipeline, or data, by stage. */
const FILTER_ARGUMENTS = new Map<string, readonly string[]>([["$graphLookup", ["restrictSearchWithMatch"]]]);
const PIPELINE_ARGUMENTS = new Map<string, readonly string[]>([
  ["$lookup", ["pipeline"]],
  ["$unionWith", ["pipeline"]],
  ["$merge", ["whenMatched"]],
]);
const DATA_ARGUMENTS = new Map<string, readonly string[]>([
  ["$bucket", ["boundaries", "default"]],
  ["$densify", ["range"]],
  ["$lookup", ["from"]],
  ["$graphLookup", ["from", "maxDepth"]],
  ["$unionWith", ["coll"]],
  ["$merge", ["into", "whenNotMatched"]],
]);

/** A field name or a list of them, renamed. */
function aliasFieldNames(value: unknown): unknown {
  if (typeof value === "string") return aliasPath(value);
  return Array.isArray(value) ? value.map(aliasFieldNames) : value;
}

/** One pipeline stage. */
export function aliasStage(stage: unknown): unknown {
  if (!isSpecObject(stage)) return stage;
  const name = Object.keys(stage)[0];
  if (name === undefined) return stage;
  const arg = stage[name];
  if (name === "$match") return { $match: aliasFilter(arg) };
  if (name === "$sort") return { $sort: isSpecObject(arg) ? withKeys(arg, (v) => v) : arg };
  if (name === "$count" || name === "$unset") return { [name]: aliasFieldNames(arg) };
  if (name === "$facet") return { $facet: isSpecObject(arg) ? withKeys(arg, aliasPipeline) : arg };
  if (name === "$out" || name === "$collStats" || name === "$indexStats") return stage;
  if (name === "$unionWith" && typeof arg === "string") return stage;
  if (name === "$merge" && typeof arg === "string") return stage;
  if (!isSpecObject(arg)) return { [name]: aliasExpression(arg) };
  return {
    [name]: withKeys(arg, (value, key) => {
      if (FIELD_ARGUMENTS.get(name)?.includes(key)) return aliasFieldNames(value);
      if (FILTER_ARGUMENTS.get(name)?.includes(key)) return aliasFilter(value);
      if (PIPELINE_ARGUMENTS.get(name)?.includes(key)) return Array.isArray(value) ? aliasPipeline(value) : value;
      if (DATA_ARGUMENTS.get(name)?.includes(key)) return aliasData(value);
      if ((name === "$lookup" || name === "$merge") && key === "let" && isSpecObject(value)) {
        return withKeys(value, aliasExpression);
      }
      return aliasExpression(value);
    }),
  };
}

/** A pipeline: each stage. */
export function aliasPipeline(stages: unknown): Document[] {
  return Array.isArray(stages) ? stages.map(aliasStage) as Document[] : stages as Document[];
}

/** Update operators whose values are conditions, or name a target path. */
const PULLS = new Set(["$pull"]);

/** An update: a replacement (data), a pipeline, or operators whose keys are paths. */
export function aliasUpdate(spec: unknown): Document | Document[] {
  if (Array.isArray(spec)) return aliasPipeline(spec);
  if (!isSpecObject(spec)) return spec as Document;
  if (!Object.keys(spec).some((k) => k.startsWith("$"))) return aliasData(spec);
  const out: Document = {};
  for (const op of Object.keys(spec)) {
    const fields = spec[op];
    if (!isSpecObject(fields)) {
      out[op] = fields;
      continue;
    }
    out[op] = withKeys(fields, (value) => {
      if (op === "$rename") return typeof value === "string" ? aliasPath(value) : value;
      if (PULLS.has(op)) {
        return isSpecObject(value) && !Object.keys(value).some((k) => k.startsWith("$"))
          ? aliasFilter(value)
          : aliasCondition(value);
      }
      if ((op === "$push" || op === "$addToSet") && isSpecObject(value) && "$each" in value) {
        return withKeys(value, (v, k) => k === "$sort" && isSpecObject(v) ? withKeys(v, (d) => d) : aliasData(v));
      }
      return aliasData(value);
    });
  }
  return out;
}

/** A find projection: keys are paths, values inclusions, `$slice`, `$elemMatch` (a filter) or expressions. */
export function aliasProjection(projection: unknown): Document {
  if (!isSpecObject(projection)) return projection as Document;
  return withKeys(projection, (value) => {
    if (isSpecObject(value) && "$elemMatch" in value) return { ...value, $elemMatch: aliasFilter(value.$elemMatch) };
    return aliasExpression(value);
  });
}

/** A sort specification: keys are paths. */
export function aliasSort(spec: unknown): Document {
  return isSpecObject(spec) ? withKeys(spec, (v) => v) : spec as Document;
}

/** `let` variables: names renamed as `$$name` references are, values data. */
export function aliasVariables(variables: Document | undefined): Document | undefined {
  if (variables === undefined || !needsAliases(variables)) return variables;
  const out: Document = {};
  for (const name of Object.keys(variables)) out[aliasName(name)] = aliasData(variables[name]);
  return out;
}

/** A document for mingo: renamed when it was marked as holding a hazardous name, else as it is. */
export function aliasDocument<T>(doc: T): T {
  return isMarkedHazardous(doc) ? aliasValue(doc) : doc;
}

/**
 * Runs `work` (which hands something to mingo) and spells its result, and any error's message,
 * back for the client. The result is walked only when a renamed name was produced on the way.
 */
export function spelledBack<T>(work: () => T, forceWalk = false): T {
  const before = aliasCounter.minted;
  let result: T;
  try {
    result = work();
  } catch (error) {
    throw unaliasedError(error);
  }
  return forceWalk || aliasCounter.minted !== before ? unaliasValue(result) : result;
}

/** An error whose message names fields as the client spelled them. */
export function unaliasedError(error: unknown): unknown {
  if (error instanceof Error && error.message.includes("\u0000")) error.message = unaliasText(error.message);
  return error;
}

/**
 * A lazy output spelled back: from the first step during which (or before which, at `since`)
 * a renamed name was produced, every document that follows is walked and spelled back.
 */
export function spelledBackIterator(source: Iterator<Document>, since: number): Iterator<Document> {
  let walking = aliasCounter.minted !== since;
  return {
    next: () => {
      const before = aliasCounter.minted;
      let step: IteratorResult<Document>;
      try {
        step = source.next();
      } catch (error) {
        throw unaliasedError(error);
      }
      if (aliasCounter.minted !== before) walking = true;
      return walking && !step.done ? { done: false, value: unaliasValue(step.value) } : step;
    },
  };
}
