import type { Document } from "bson";
import type { Iterator as LazyIterator } from "mingo/lazy";
import * as mingoPipeline from "mingo/operators/pipeline";
import type { Options, PipelineOperator } from "mingo/types";
import { isPlainObject } from "../bson.ts";
import { checkProjectionKind } from "./projection-kind.ts";

/**
 * Documents in MongoDB's field order after an inclusion projection (the `$project` stage, and
 * find projections mingo computes), as MongoDB's classic engine orders them: the fields taken
 * from the input document (`_id` included) in the input's order, at every depth, then the
 * computed fields in the order the projection names them. mingo emitted fields in alphabetical
 * order, `_id` last. (MongoDB's slot-based engine, where it runs a find, orders included fields
 * as the projection names them instead; both put computed fields after included ones.)
 */

type Stage = (collection: LazyIterator, expr: unknown, options: Options) => LazyIterator;

const mingoProject = (mingoPipeline as unknown as Record<string, Stage>).$project;

/** What a projection does with one field: takes it from the input, computes it, or projects inside it. */
type FieldRole = "taken" | "computed" | ProjectionTree;
/** A projection's fields, one level at a time, in the order the projection first names them. */
interface ProjectionTree extends Map<string, FieldRole> {}

const isOperatorObject = (v: unknown): boolean => isPlainObject(v) && Object.keys(v)[0]?.startsWith("$") === true;

/**
 * The role of a value in a projection: 1/true (and in a find, `$slice`) take the field. A find's
 * `$elemMatch` comes after the fields taken, as MongoDB documents it (4.4 and later), and in the
 * `$project` stage `$slice` is the expression, a computed field.
 */
function roleOf(value: unknown, find: boolean): FieldRole | "excluded" {
  if (value === 0 || value === false) return "excluded";
  if (typeof value === "number" || value === true) return "taken";
  if (find && isPlainObject(value) && "$slice" in value) return "taken";
  return "computed";
}

/** Adds one path of a projection (`a.b`, or `a` given a nested spec `{b: 1}`) to the tree. */
function addPath(tree: ProjectionTree, parts: string[], value: unknown, find: boolean): void {
  const [head, ...rest] = parts;
  if (rest.length === 0 || (rest.length === 1 && rest[0] === "$")) {
    if (isPlainObject(value) && !isOperatorObject(value)) {
      for (const [field, inner] of Object.entries(value)) addPath(subtree(tree, head), field.split("."), inner, find);
      return;
    }
    const role = roleOf(value, find);
    if (role !== "excluded" && !tree.has(head)) tree.set(head, role);
    return;
  }
  addPath(subtree(tree, head), rest, value, find);
}

function subtree(tree: ProjectionTree, field: string): ProjectionTree {
  const role = tree.get(field);
  if (role instanceof Map) return role;
  const child: ProjectionTree = new Map();
  tree.set(field, child);
  return child;
}

/**
 * The tree of an inclusion projection (one that takes or computes a field), with `_id` taken
 * unless the projection says otherwise; undefined for an exclusion, whose output keeps the
 * input's order already. `find`: a find's projection, with find's operators.
 */
export function projectionTree(projection: Document, find = false): ProjectionTree | undefined {
  const tree: ProjectionTree = new Map();
  for (const [path, value] of Object.entries(projection)) addPath(tree, path.split("."), value, find);
  if (![...tree].some(([field, role]) => field !== "_id" && includes(role))) return undefined;
  if (!("_id" in projection)) tree.set("_id", "taken");
  return tree;
}

/** Whether a role takes or computes anything (an exclusion's paths leave empty subtrees). */
function includes(role: FieldRole): boolean {
  return !(role instanceof Map) || [...role.values()].some(includes);
}

/** `output` (the projection of `input`) with its fields in MongoDB's order; the same object when already so. */
export function inProjectionOrder(input: unknown, output: Document, tree: ProjectionTree): Document {
  const source = isPlainObject(input) ? input : {};
  const flat = flatOrder(tree, source);
  if (flat !== undefined) return inFlatOrder(output, flat);
  const out: Document = {};
  for (const field in source) {
    const role = tree.get(field);
    if (!Object.hasOwn(output, field) || role === undefined || role === "computed") continue;
    if (role === "taken") out[field] = output[field];
    else if (isPlainObject(source[field]) || Array.isArray(source[field])) {
      out[field] = orderedValue(source[field], output[field], role);
    }
  }
  for (const [field, role] of tree) {
    if (!Object.hasOwn(output, field) || Object.hasOwn(out, field)) continue;
    out[field] = role instanceof Map ? orderedValue(undefined, output[field], role) : output[field];
  }
  for (const field in output) if (!Object.hasOwn(out, field)) out[field] = output[field];
  return sameOrder(out, output) ? output : out;
}

/** The last input shape a projection with no nested part met, and the output order it gives. */
interface FlatOrder {
  fields: string[];
  order: string[];
}
const flatOrders = new WeakMap<ProjectionTree, FlatOrder | null>();

/**
 * The output order a projection with no nested part gives documents whose fields are those of
 * `source`, in order: taken fields in the input's order, then the others in the projection's.
 * Undefined for a projection with a nested part. Kept for the last input shape (a page's
 * documents share one): ordering each document field by field cost more than a third of a
 * relation page's projection.
 */
function flatOrder(tree: ProjectionTree, source: Document): string[] | undefined {
  let last = flatOrders.get(tree);
  if (last === undefined) {
    last = [...tree.values()].some((role) => role instanceof Map) ? null : { fields: [], order: [] };
    flatOrders.set(tree, last);
  }
  if (last === null) return undefined;
  if (sameFields(source, last.fields)) return last.order;
  const fields = Object.keys(source);
  const taken = fields.filter((field) => tree.get(field) === "taken");
  const order = [...taken, ...[...tree.keys()].filter((field) => !taken.includes(field))];
  flatOrders.set(tree, { fields, order });
  return order;
}

/** Whether `doc` has exactly these fields, in this order. */
function sameFields(doc: Document, fields: readonly string[]): boolean {
  const names = Object.keys(doc);
  if (names.length !== fields.length) return false;
  for (let i = 0; i < names.length; i++) if (names[i] !== fields[i]) return false;
  return true;
}

/** `output` with the fields `order` names first, in that order, then any others. */
function inFlatOrder(output: Document, order: readonly string[]): Document {
  const out: Document = {};
  let placed = 0;
  for (const field of order) {
    if (Object.hasOwn(output, field)) {
      out[field] = output[field];
      placed++;
    }
  }
  if (placed < Object.keys(output).length) {
    for (const field in output) {
      if (!Object.hasOwn(out, field)) out[field] = output[field];
    }
  }
  return out;
}

/** A projected value inside a nested projection: a document, or an array of them (paired with the input's). */
function orderedValue(input: unknown, output: unknown, tree: ProjectionTree): unknown {
  if (isPlainObject(output)) return inProjectionOrder(input, output, tree);
  if (!Array.isArray(output)) return output;
  // An inclusion drops the input array's scalars, so its documents and arrays pair with the output's.
  const sources = Array.isArray(input) ? input.filter((v) => isPlainObject(v) || Array.isArray(v)) : [];
  const paired = sources.length === output.length;
  return output.map((element, i) => orderedValue(paired ? sources[i] : undefined, element, tree));
}

function sameOrder(a: Document, b: Document): boolean {
  const keys = Object.keys(b);
  let i = 0;
  for (const key in a) if (key !== keys[i++] || a[key] !== b[key]) return false;
  return i === keys.length;
}

/** `$project`, its output in MongoDB's field order. */
const $project: Stage = (collection, expr, options) => {
  if (isPlainObject(expr)) checkProjectionKind(expr);
  const tree = isPlainObject(expr) ? projectionTree(expr) : undefined;
  if (tree === undefined) return mingoProject(collection, expr, options);
  // mingo's stage maps each input to its output lazily, one at a time: the last input seen is the output's.
  let input: unknown;
  const inputs = collection.map((doc) => (input = doc));
  return mingoProject(inputs, expr, options).map((doc) => inProjectionOrder(input, doc as Document, tree));
};

/** The stage, to register in mingo's context over its own. */
export const shapeStages: Record<string, PipelineOperator> = {
  $project: $project as unknown as PipelineOperator,
};
