import type { Document } from "bson";
import { isPlainObject } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { setField } from "../field-names.ts";
import { aliasDocument, aliasFilter, aliasProjection, needsAliases, spelledBack } from "./aliases.ts";
import { isEmptyFilter } from "./filter.ts";
import { projectingQuery } from "./mingo.ts";
import { checkProjectionKind } from "./projection-kind.ts";
import { inProjectionOrder, projectionTree } from "./shape.ts";

/** Applies a projection to a batch of documents; `null` when there is nothing to project. */
export type Projector = ((docs: Document[]) => Document[]) | null;

/**
 * A projection that only includes or only excludes top-level fields (what list endpoints
 * send: `{ _id: 1, name: 1 }`, `{ password: 0 }`), done by picking fields: no cloning, and
 * the document's field order is kept as MongoDB does. Undefined for anything richer.
 */
function topLevelProjection(projection: Document): Projector | undefined {
  let mode: "include" | "exclude" | undefined;
  let keepId = true;
  const fields = new Set<string>();
  for (const [field, value] of Object.entries(projection)) {
    if (field.includes(".") || field.startsWith("$")) return undefined;
    const on = value === 1 || value === true;
    if (!on && value !== 0 && value !== false) return undefined;
    if (field === "_id") {
      keepId = on;
      continue;
    }
    if (mode !== undefined && mode !== (on ? "include" : "exclude")) return undefined;
    mode = on ? "include" : "exclude";
    fields.add(field);
  }
  // `{ _id: 1 }` alone includes only _id; `{ _id: 0 }` alone excludes only _id.
  const including = mode === "include" || (mode === undefined && keepId);
  const keep = (field: string): boolean =>
    field === "_id" ? keepId : including ? fields.has(field) : !fields.has(field);
  return (docs) =>
    docs.map((doc) => {
      const out: Document = {};
      for (const field of Object.keys(doc)) if (keep(field)) setField(out, field, doc[field]);
      return out;
    });
}

/** Compiled top-level projections by their JSON: a list sends the same one on every request. */
const simpleProjectors = new Map<string, Projector>();
const MAX_SIMPLE_PROJECTORS = 64;
/** Every projector made by {@link topLevelProjection}, memoised or not. */
const topLevelProjectors = new WeakSet<object>();

/**
 * A top-level projection, compiled once per distinct spec. Only values 0/1/true/false make a
 * simple spec, so equal JSON means an equal spec; the cap keeps clients that vary their field
 * lists from growing the map without bound.
 */
function simpleProjection(projection: Document): Projector | undefined {
  const key = JSON.stringify(projection);
  const known = simpleProjectors.get(key);
  if (known !== undefined) return known;
  const compiled = topLevelProjection(projection);
  if (compiled === undefined) return undefined;
  topLevelProjectors.add(compiled!);
  if (simpleProjectors.size >= MAX_SIMPLE_PROJECTORS) simpleProjectors.clear();
  simpleProjectors.set(key, compiled);
  return compiled;
}

/**
 * True when the projector's output depends on the document alone (none, or a top-level pick),
 * so a projected document may be cached per stored document. Not so for mingo's projections:
 * positional ones depend on the filter, and expressions may read variables such as $$NOW.
 */
export function dependsOnDocumentOnly(project: Projector): boolean {
  return project === null || topLevelProjectors.has(project);
}

/**
 * Compiles a find projection. Simple top-level ones are picked directly; the rest go to
 * mingo, with input documents cloned first because they are the stored ones (mingo's
 * projection may write into what it is given). Only a batch is projected at a time.
 */
export function compileProjection(projection: unknown, filter?: unknown): Projector {
  if (isEmptyFilter(projection)) return null;
  if (!isPlainObject(projection)) throw new CommandError("TypeMismatch", "projection must be an object");
  checkProjectionKind(projection);
  const simple = simpleProjection(projection);
  if (simple) return simple;
  if (!needsAliases(projection) && !needsAliases(filter)) return spelledForMingo(mingoProjection(projection, filter));
  // A projection or filter naming `constructor` or `__proto__` is spelled for mingo (aliases.ts).
  const spelled = spelledForMingo(mingoProjection(aliasProjection(projection), aliasFilter(filter)));
  return (docs) => spelledBack(() => spelled(docs), true);
}

/** A projector given documents spelled for mingo, whose results are spelled back when renaming took place. */
function spelledForMingo(project: (docs: Document[]) => Document[]): (docs: Document[]) => Document[] {
  return (docs) => spelledBack(() => project(docs.map(aliasDocument)));
}

/** A projection mingo applies (with the engine's field order, `$slice` and positional rules around it). */
function mingoProjection(projection: Document, filter: unknown): (docs: Document[]) => Document[] {
  // The filter only matters to positional projections ("a.$"); the batch already matches it.
  const positional = Object.keys(projection).find((k) => k.endsWith(".$"));
  const condition = positional && isPlainObject(filter) ? filter : {};
  if (positional && !mentionsPath(condition, positional.slice(0, -2))) return refusePositional;
  const query = projectingQuery(condition);
  const slices = sliceOnlyFields(projection);
  if (slices !== undefined) {
    // mingo is given the slices alone (it reads them as inclusions, so refuses them beside exclusions).
    const slicing = Object.fromEntries(slices.sliced.map((field) => [field, projection[field]]));
    return (docs) => query.find<Document>(docs, slicing).all().map((sliced, i) => withSlices(docs[i], sliced, slices));
  }
  const tree = projectionTree(projection, true);
  if (tree === undefined) return (docs) => query.find<Document>(docs, projection).all();
  // One output per input, in order: the batch already matches the filter.
  return (docs) => query.find<Document>(docs, projection).all().map((out, i) => inProjectionOrder(docs[i], out, tree));
}

/**
 * A positional projection whose array the filter does not name has no element to show:
 * MongoDB fails the read on the first document it would return (51246), not on an empty one.
 */
const refusePositional = (docs: Document[]): Document[] => {
  if (docs.length === 0) return [];
  throw new CommandError(
    "Location51246",
    "positional operator '.$' couldn't find a matching element in the array",
  );
};

/** Whether a filter has a condition on `path` or below it, at its top or in its `$and`/`$or`/`$nor` branches. */
function mentionsPath(filter: Document, path: string): boolean {
  for (const key in filter) {
    const value = filter[key];
    if (key === path || key.startsWith(`${path}.`)) return true;
    if ((key === "$and" || key === "$or" || key === "$nor") && Array.isArray(value)) {
      if (value.some((branch) => isPlainObject(branch) && mentionsPath(branch, path))) return true;
    }
  }
  return false;
}

const isSlice = (v: unknown) => isPlainObject(v) && Object.keys(v).length === 1 && "$slice" in v;

/**
 * The `$slice` fields of a projection that has no inclusion, and so, as in MongoDB, keeps every
 * other field (less the excluded ones); undefined for any other projection. mingo read a
 * `$slice` as an inclusion and dropped the rest of the document.
 */
function sliceOnlyFields(projection: Document): { sliced: string[]; excluded: string[] } | undefined {
  const sliced: string[] = [];
  const excluded: string[] = [];
  for (const [field, value] of Object.entries(projection)) {
    if (isSlice(value)) sliced.push(field);
    else if (value === 0 || value === false) excluded.push(field);
    else if (field !== "_id") return undefined;
  }
  return sliced.length > 0 ? { sliced, excluded } : undefined;
}

/** The stored document with its sliced arrays taken from mingo's projection, and exclusions applied. */
function withSlices(doc: Document, sliced: Document, fields: { sliced: string[]; excluded: string[] }): Document {
  let out: Document = { ...doc };
  for (const path of fields.sliced) out = withPath(out, path.split("."), valueAt(sliced, path.split(".")));
  for (const path of fields.excluded) out = withPath(out, path.split("."), undefined);
  return out;
}

function valueAt(doc: unknown, parts: string[]): unknown {
  return parts.reduce<unknown>((v, part) => isPlainObject(v) ? v[part] : undefined, doc);
}

/** A copy of `doc` with the value at a path through documents replaced (undefined: removed). */
function withPath(doc: Document, parts: string[], value: unknown): Document {
  const [head, ...rest] = parts;
  if (!(head in doc)) return doc;
  const out = { ...doc };
  if (rest.length === 0) {
    if (value === undefined) delete out[head];
    else out[head] = value;
  } else if (isPlainObject(doc[head])) out[head] = withPath(doc[head], rest, value);
  return out;
}
