import { type Document, ObjectId, Timestamp } from "bson";
import { ProcessingMode } from "mingo";
import { Aggregator } from "mingo/aggregator";
import type { Options } from "mingo/types";
import { update as mingoUpdate } from "mingo/updater";
import { firstKey, isPlainObject } from "../bson.ts";
import {
  aliasCounter,
  aliasValue,
  copyValue,
  isMarkedHazardous,
  ownField,
  setField,
  unaliasValue,
} from "../field-names.ts";
import { CommandError } from "../errors.ts";
import type { Collation } from "../store/collation.ts";
import { compareStrings } from "../store/strings.ts";
import { compareValues, identicalValues } from "../store/values.ts";
import { prepareCondition, prepareFilter } from "./filter-checks.ts";
import { expandSharedArrayPaths } from "./array-update-paths.ts";
import { resolvePositional } from "./positional.ts";
import { queryRegex } from "./regex.ts";
import { ENGINE_CONTEXT } from "./mingo.ts";
import { aliasFilter, aliasUpdate, aliasVariables, needsAliases, spelledBack } from "./aliases.ts";
import { applyPushOrderings, dedupeAddToSet, takePushOrderings } from "./push-modifiers.ts";
import { refuseImpossibleUpdate, refuseMalformedUpdate, writtenPaths } from "./update-checks.ts";
import { inUpdateOrder } from "./update-order.ts";
import type { Variables } from "./variables.ts";
import { settleWideNumbers } from "./wide-numbers.ts";

/** An update as sent by the client: operators, a replacement document, or a pipeline. */
export type UpdateSpec = Document | Document[];

/** Options of one update statement. */
export interface UpdateOptions {
  filter?: unknown;
  arrayFilters?: Document[];
  /** How strings compare in the filter, array filters and update pipelines (none: binary). */
  collation?: Collation;
  /** The command's `let` variables, for pipeline updates. */
  variables?: Variables;
}

/** True when the update is made of `$` operators (as opposed to a replacement document). */
export function isOperatorUpdate(spec: UpdateSpec): boolean {
  return !Array.isArray(spec) && (firstKey(spec)?.startsWith("$") ?? false);
}

function immutableId(): CommandError {
  return new CommandError(
    "ImmutableField",
    "Performing an update on the path '_id' would modify the immutable field '_id'",
  );
}

function withIdFirst(id: unknown, doc: Document): Document {
  const { _id: _ignored, ...rest } = doc;
  return { _id: id, ...rest };
}

function replace(doc: Document, replacement: Document): Document {
  for (const k of Object.keys(replacement)) {
    if (k.startsWith("$")) {
      throw new CommandError("BadValue", `The dollar ($) prefixed field '${k}' is not allowed here`);
    }
  }
  if ("_id" in replacement && compareValues(replacement._id, doc._id) !== 0) throw immutableId();
  return withIdFirst(doc._id, replacement);
}

/**
 * `$currentDate` fields asking for a timestamp, as a `$set` of one (mingo set a number of
 * milliseconds). Each update in a process gets a later timestamp, as the server's clock gives.
 */
function settleTimestamps(modifier: Document): Document {
  const fields = modifier.$currentDate;
  if (!isPlainObject(fields)) return modifier;
  const stamps = Object.keys(fields).filter((path) =>
    isPlainObject(fields[path]) && fields[path].$type === "timestamp"
  );
  if (stamps.length === 0) return modifier;
  const set: Document = { ...(isPlainObject(modifier.$set) ? modifier.$set : {}) };
  const rest: Document = { ...fields };
  const now = nextTimestamp();
  for (const path of stamps) {
    set[path] = now;
    delete rest[path];
  }
  const out: Document = { ...modifier, $set: set, $currentDate: rest };
  if (Object.keys(rest).length === 0) delete out.$currentDate;
  return out;
}

let lastTimestamp = { t: 0, i: 0 };

function nextTimestamp(): Timestamp {
  const t = Math.floor(Date.now() / 1000);
  lastTimestamp = t > lastTimestamp.t ? { t, i: 1 } : { t: lastTimestamp.t, i: lastTimestamp.i + 1 };
  return new Timestamp(lastTimestamp);
}

/** Prepared `$pull` specs and array filters, by the statement's objects: a statement prepares them once. */
const preparedPulls = new WeakMap<Document, Document>();
const preparedFilterLists = new WeakMap<Document[], Document[]>();

function preparedArrayFilters(filters: Document[]): Document[] {
  let prepared = preparedFilterLists.get(filters);
  if (prepared === undefined) {
    prepared = filters.map((f) => isPlainObject(f) ? prepareFilter(f) : f);
    preparedFilterLists.set(filters, prepared);
  }
  return prepared;
}

/** `$pull`'s conditions, checked and with their regexes compiled as a filter's are. */
function preparePull(spec: Document): Document {
  const known = preparedPulls.get(spec);
  if (known !== undefined) return known;
  const prepared: Document = {};
  for (const path in spec) {
    const condition = spec[path];
    if (condition instanceof RegExp) prepared[path] = queryRegex(condition);
    else if (!isPlainObject(condition)) prepared[path] = condition;
    else if (Object.keys(condition).some((k) => k.startsWith("$"))) prepared[path] = prepareCondition(condition);
    else prepared[path] = prepareFilter(condition);
  }
  preparedPulls.set(spec, prepared);
  return prepared;
}

function applyOperators(doc: Document, update: Document, options: UpdateOptions, inserting: boolean): Document {
  refuseMalformedUpdate(update);
  // An upsert's new document matched no array element: refusePositional below says so.
  const spec = inserting ? update : resolvePositional(doc, update, options.filter, options.collation);
  const arrayFilters = options.arrayFilters && preparedArrayFilters(options.arrayFilters);
  refuseImpossibleUpdate(doc, spec, inserting, arrayFilters, options.collation);
  const settled = settleTimestamps(settleWideNumbers(doc, spec));
  const { update: modifier, orderings } = takePushOrderings(dedupeAddToSet(settled, options.collation?.compare));
  const onInsert = modifier.$setOnInsert;
  delete modifier.$setOnInsert;
  if (inserting && isPlainObject(onInsert)) modifier.$set = { ...(modifier.$set ?? {}), ...onInsert };
  if (inserting) refusePositional(modifier);
  const setId = takeIdAssignment(modifier);
  const next = copyValue(doc);
  if (setId) next._id = doc._id === undefined ? copyValue(setId.value) : doc._id;
  if (setId && doc._id !== undefined && compareValues(setId.value, doc._id) !== 0) throw immutableId();
  if (Object.keys(modifier).length > 0) {
    try {
      const queryOptions = { context: ENGINE_CONTEXT, collation: options.collation as unknown as Options["collation"] };
      // mingo reads the filter for the positional `$`; it gets the filter as prepared for matching.
      // mingo also applies the update only to a document the filter matches: an upsert's new
      // document, seeded from the filter's equalities alone, need not (`{c: {$gt: 1}}`), so it
      // gets no filter.
      const filter = !inserting && isPlainObject(options.filter) ? prepareFilter(options.filter) : undefined;
      if (isPlainObject(modifier.$pull)) modifier.$pull = preparePull(modifier.$pull);
      mingoUpdate(next, expandSharedArrayPaths(doc, modifier, arrayFilters, options.collation), arrayFilters, filter, {
        queryOptions,
      });
      applyPushOrderings(next, orderings, options.collation?.compare);
    } catch (error) {
      // mingo detects some _id changes itself; report them with MongoDB's code.
      if (error instanceof Error && error.message.includes("immutable field '_id'")) throw immutableId();
      throw error;
    }
  }
  if ("_id" in doc && compareValues(next._id, doc._id) !== 0) throw immutableId();
  return inUpdateOrder(doc, next, writtenPaths(spec));
}

/** An upsert's new document matched no array element, so the positional `$` has none to name. */
function refusePositional(modifier: Document): void {
  for (const fields of Object.values(modifier)) {
    if (!isPlainObject(fields)) continue;
    for (const path of Object.keys(fields)) {
      if (path.split(".").includes("$")) {
        throw new CommandError("BadValue", "The positional operator did not find the match needed from the query.");
      }
    }
  }
}

/**
 * Takes `$set: {_id: v}` out of a modifier: MongoDB lets it give an upsert's new document its
 * `_id`, and accepts it on a stored document when `v` is the `_id` it has; mingo refused both.
 */
function takeIdAssignment(modifier: Document): { value: unknown } | undefined {
  const set = modifier.$set;
  if (!isPlainObject(set) || !Object.hasOwn(set, "_id")) return undefined;
  const { _id: value, ...rest } = set;
  if (Object.keys(rest).length > 0) modifier.$set = rest;
  else delete modifier.$set;
  return { value };
}

function applyPipeline(doc: Document, pipeline: Document[], options: UpdateOptions): Document {
  const { variables } = options;
  const collation = options.collation as unknown as Options["collation"];
  const out = new Aggregator(pipeline, {
    processingMode: ProcessingMode.CLONE_INPUT,
    context: ENGINE_CONTEXT,
    collation,
    variables,
  }).run<Document>([doc]);
  const next = out[0];
  if (!next) throw new CommandError("BadValue", "update pipeline produced no document");
  if (doc._id === undefined) return next;
  if ("_id" in next && compareValues(next._id, doc._id) !== 0) throw immutableId();
  return withIdFirst(doc._id, next);
}

/**
 * Computes the post-image of `doc` under an update without touching `doc` (stored documents
 * are immutable). `inserting` is true for the document an upsert creates ($setOnInsert applies).
 * Returns the new document and whether it differs.
 */
export function applyUpdate(
  doc: Document,
  spec: UpdateSpec,
  options: UpdateOptions,
  inserting = false,
): { doc: Document; changed: boolean } {
  if (!isMarkedHazardous(doc) && !namesHazards(spec, options)) {
    // A pipeline may still build such a name ($arrayToObject), spelled back if it did.
    const before = aliasCounter.minted;
    const result = spelledBack(() => applySpelled(doc, spec, options, inserting));
    return aliasCounter.minted === before ? result : { doc: unaliasValue(result.doc), changed: result.changed };
  }
  // Names such as `__proto__` or `constructor` are fields: the update runs on them renamed
  // (aliases.ts), in the document, the update, its filter and array filters, and the result
  // is spelled back.
  return spelledBack(() => {
    const spelledOptions: UpdateOptions = {
      ...options,
      filter: aliasFilter(options.filter),
      arrayFilters: options.arrayFilters?.map(aliasFilter),
      variables: aliasVariables(options.variables),
    };
    const { doc: next, changed } = applySpelled(aliasValue(doc), aliasUpdate(spec), spelledOptions, inserting);
    return { doc: unaliasValue(next), changed };
  });
}

/** Whether an update statement names a field such as `constructor` (remembered per statement's objects). */
function namesHazards(spec: UpdateSpec, options: UpdateOptions): boolean {
  let known = hazardousStatements.get(spec);
  if (known === undefined) {
    known = needsAliases(spec) || needsAliases(options.filter) || needsAliases(options.arrayFilters);
    hazardousStatements.set(spec, known);
  }
  return known;
}

const hazardousStatements = new WeakMap<object, boolean>();

function applySpelled(
  doc: Document,
  spec: UpdateSpec,
  options: UpdateOptions,
  inserting: boolean,
): { doc: Document; changed: boolean } {
  let next: Document;
  if (Array.isArray(spec)) next = applyPipeline(doc, spec, options);
  else if (isOperatorUpdate(spec)) next = applyOperators(doc, spec, options, inserting);
  else next = replace(doc, spec);
  return { doc: next, changed: !identicalValues(next, doc) };
}

/** Sets a dotted path of a new document, through fields it owns only (`__proto__.q` is a field `__proto__`). */
function setPath(doc: Document, path: string, value: unknown): void {
  const parts = path.split(".");
  let target = doc;
  for (const part of parts.slice(0, -1)) {
    if (!isPlainObject(ownField(target, part))) setField(target, part, {});
    target = target[part] as Document;
  }
  setField(target, parts[parts.length - 1], value);
}

/**
 * The filter's equality fields, by path, as MongoDB finds them in its optimised query: plain
 * and `$eq` conditions (a whole array or document too), a one-element `$in` (which MongoDB
 * rewrites to an equality), each member of `$all`, `$and` branches and a one-branch `$or`. A path
 * matched twice, or beside a path inside it, is refused (54), as MongoDB cannot tell which
 * value the new document should hold.
 */
function collectEqualities(filter: unknown, into: Map<string, unknown>): void {
  if (!isPlainObject(filter)) return;
  for (const [field, cond] of Object.entries(filter)) {
    if ((field === "$and" || field === "$or") && Array.isArray(cond)) {
      if (field === "$and" || cond.length === 1) { for (const part of cond) collectEqualities(part, into); }
      continue;
    }
    if (field.startsWith("$")) continue;
    for (const value of equalitiesOf(cond)) addEquality(into, field, value);
  }
}

function equalitiesOf(cond: unknown): unknown[] {
  if (cond instanceof RegExp) return [];
  if (!isPlainObject(cond) || !Object.keys(cond).some((k) => k.startsWith("$"))) return [cond];
  const found: unknown[] = [];
  for (const [op, arg] of Object.entries(cond)) {
    if (op === "$eq") found.push(arg);
    else if (op === "$in" && Array.isArray(arg)) {
      const distinct = arg.filter((v, i) => arg.findIndex((w) => compareValues(v, w) === 0) === i);
      if (distinct.length === 1 && !(distinct[0] instanceof RegExp)) found.push(distinct[0]);
    } else if (op === "$all" && Array.isArray(arg)) {
      for (const member of arg) {
        if (!(member instanceof RegExp) && !(isPlainObject(member) && "$elemMatch" in member)) found.push(member);
      }
    }
  }
  return found;
}

function addEquality(into: Map<string, unknown>, path: string, value: unknown): void {
  if (into.has(path)) {
    throw new CommandError("NotSingleValueField", `cannot infer query fields to set, path '${path}' is matched twice`);
  }
  for (const other of into.keys()) {
    if (other.startsWith(`${path}.`) || path.startsWith(`${other}.`)) {
      throw new CommandError(
        "NotSingleValueField",
        `cannot infer query fields to set, both paths '${other}' and '${path}' are matched`,
      );
    }
  }
  into.set(path, value);
}

/** The document an upsert starts from: the equality fields set in path order, as MongoDB keeps them in a sorted map. */
function seedDocument(filter: unknown): Document {
  const equalities = new Map<string, unknown>();
  collectEqualities(filter, equalities);
  const seed: Document = {};
  for (const path of [...equalities.keys()].sort(compareStrings)) setPath(seed, path, copyValue(equalities.get(path)));
  return seed;
}

/**
 * The document an upsert inserts: the filter's equality fields (only `_id` for a
 * replacement), then the update applied; an ObjectId `_id` is generated when none is given.
 */
export function upsertDocument(filter: unknown, spec: UpdateSpec, options: UpdateOptions): Document {
  const seed = seedDocument(filter);
  const id = "_id" in seed ? seed._id : new ObjectId();
  if (!Array.isArray(spec) && !isOperatorUpdate(spec)) {
    if ("_id" in spec && "_id" in seed && compareValues(spec._id, seed._id) !== 0) throw immutableId();
    return withIdFirst("_id" in spec ? spec._id : id, spec);
  }
  const inserted = applyUpdate(seed, spec, options, true).doc;
  return withIdFirst(inserted._id !== undefined ? inserted._id : id, inserted);
}
