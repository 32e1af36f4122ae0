import type { Document } from "bson";
import { isPlainObject, toNumber, valueText } from "../bson.ts";
import { CommandError } from "../errors.ts";
import type { Collation } from "../store/collation.ts";
import { elementPaths, isArrayUpdatePart } from "./array-update-paths.ts";
import { bsonTypeOf } from "./bson-types.ts";
import { numberKind } from "./number-arithmetic.ts";

/**
 * What MongoDB refuses in an operator update, checked before anything is applied. mingo's
 * updater skipped these silently: `$inc` of a string, `$push` onto a string, `$set` of
 * `"s.x"` inside a string all answered "acknowledged, 0 modified", and `$rename` onto such a
 * path dropped the source field. The client now gets MongoDB's error and the document is not
 * touched. Paths with `$[]` and `$[i]` parts are checked at each element they reach; the
 * positional `a.$` is left to mingo.
 */

/** The operators that create the field at their path if it is missing. */
const CREATING = new Set(["$set", "$inc", "$mul", "$min", "$max", "$currentDate", "$push", "$addToSet"]);

/**
 * Refuses an update MongoDB would refuse on this document; `inserting` for an upsert's new
 * document, `arrayFilters` (prepared) for the `$[identifier]` parts of its paths, matched under
 * the update's `collation`.
 */
export function refuseImpossibleUpdate(
  doc: Document,
  spec: Document,
  inserting: boolean,
  arrayFilters?: Document[],
  collation?: Collation,
): void {
  refuseUnknownOperators(spec);
  refuseBadPaths(spec);
  refuseConflictingPaths(spec);
  for (const op in spec) {
    const fields = spec[op];
    if (!isPlainObject(fields)) continue;
    for (const path in fields) {
      if (op === "$rename") {
        if (typeof fields[path] === "string") refuseRename(doc, path, fields[path]);
        continue;
      }
      const creates = CREATING.has(op) || (op === "$setOnInsert" && inserting);
      if (path.includes("$")) {
        refuseElementUpdates(doc, op, path, fields[path], creates, arrayFilters, collation);
        continue;
      }
      const at = creates ? refuseTarget(doc, path) : reach(doc, path);
      if ("value" in at) refuseOperand(doc, op, path, at.value, fields[path]);
    }
  }
}

/**
 * The checks of {@link refuseImpossibleUpdate} on each element an `$[]` or `$[identifier]` path
 * reaches, so that one bad element refuses the whole update (mingo updated the others). MongoDB
 * names the element's own field in the message (`'0'`), not the path. The positional `$` is
 * left to mingo.
 */
function refuseElementUpdates(
  doc: Document,
  op: string,
  path: string,
  arg: unknown,
  creates: boolean,
  arrayFilters: Document[] | undefined,
  collation: Collation | undefined,
): void {
  for (const element of elementPaths(doc, path, arrayFilters, collation) ?? []) {
    const concrete = element.parts.join(".");
    const at = creates ? refuseTarget(doc, concrete) : reach(doc, concrete);
    if ("value" in at) refuseOperand(doc, op, element.parts[element.parts.length - 1], at.value, arg);
  }
}

/** The update operators MongoDB 7.0 knows. */
const OPERATORS = new Set([
  "$set",
  "$unset",
  "$inc",
  "$mul",
  "$min",
  "$max",
  "$rename",
  "$setOnInsert",
  "$currentDate",
  "$push",
  "$addToSet",
  "$pop",
  "$pull",
  "$pullAll",
  "$bit",
]);

/** Refuses an unknown operator, an operator not given a document of fields, and a `$pop` not by 1 or -1. */
function refuseUnknownOperators(spec: Document): void {
  for (const op in spec) {
    if (!OPERATORS.has(op)) {
      throw new CommandError(
        "FailedToParse",
        `Unknown modifier: ${op}. Expected a valid update modifier or pipeline-style update specified as an array`,
      );
    }
    const fields = spec[op];
    if (!isPlainObject(fields)) {
      throw new CommandError(
        "FailedToParse",
        `Modifiers operate on fields but we found type ${
          bsonTypeOf(fields)
        } instead. For example: {$mod: {<field>: ...}} not {${op}: ${shortText(fields)}}`,
      );
    }
    if (op !== "$pop") continue;
    for (const path in fields) {
      const by = numberKind(fields[path]) === undefined ? Number.NaN : toNumber(fields[path]);
      if (by !== 1 && by !== -1) {
        throw new CommandError("FailedToParse", `$pop expects 1 or -1, found: ${shortText(fields[path])}`);
      }
    }
  }
}

/** A positional part of an update path: `$`, `$[]` or `$[identifier]`. */
const POSITIONAL = /^\$(?:\[(?:[a-z][a-zA-Z0-9]*)?\])?$/;

/** Refuses empty paths, empty field names (`a..b`, `a.`) and `$`-prefixed names that are not positional. */
function refuseBadPaths(spec: Document): void {
  const renames = spec.$rename;
  if (isPlainObject(renames)) {
    for (const source in renames) if (typeof renames[source] === "string") refuseRenamePaths(source, renames[source]);
  }
  for (const path of writtenPaths(spec)) {
    if (path === "") throw new CommandError("EmptyFieldName", "An empty update path is not valid.");
    const parts = path.split(".");
    if (parts.includes("")) {
      throw new CommandError(
        "EmptyFieldName",
        `The update path '${path}' contains an empty field name, which is not allowed.`,
      );
    }
    const dollar = parts.find((part, i) => part.startsWith("$") && (i === 0 || !POSITIONAL.test(part)));
    if (dollar !== undefined) {
      throw new CommandError(
        "DollarPrefixedFieldName",
        `The dollar ($) prefixed field '${dollar}' in '${path}' is not valid for storage.`,
      );
    }
  }
}

/** `$rename`'s rules on its paths: fixed ones, that differ, neither inside the other. */
function refuseRenamePaths(source: string, target: string): void {
  const about = `${source}: ${JSON.stringify(target)}`;
  if (source.includes("$")) {
    throw new CommandError("BadValue", `The source field for $rename may not be dynamic: ${about}`);
  }
  if (target.includes("$")) {
    throw new CommandError("BadValue", `The destination field for $rename may not be dynamic: ${about}`);
  }
  if (source === target) {
    throw new CommandError("BadValue", `The source and target field for $rename must differ: ${about}`);
  }
  if (target.startsWith(`${source}.`) || source.startsWith(`${target}.`)) {
    throw new CommandError(
      "BadValue",
      `The source and target field for $rename must not be on the same path: ${about}`,
    );
  }
}

/**
 * Refuses what MongoDB refuses when it parses an update, before it matches any document:
 * unknown operators, bad or conflicting paths, and `$rename`'s rules on its paths. These come
 * before the positional `$` is resolved against the matched document (see positional.ts).
 */
export function refuseMalformedUpdate(spec: Document): void {
  refuseUnknownOperators(spec);
  refuseBadPaths(spec);
  refuseConflictingPaths(spec);
  const renames = spec.$rename;
  if (!isPlainObject(renames)) return;
  for (const source in renames) {
    if (typeof renames[source] === "string") refuseRenamePaths(source, renames[source]);
  }
}

/** `$rename`'s rules on the document: neither field inside an array, and room for the target. */
function refuseRename(doc: Document, source: string, target: string): void {
  for (const [path, role] of [[source, "source"], [target, "destination"]]) {
    if (passesThroughArray(doc, path)) {
      throw new CommandError(
        "BadValue",
        `The ${role} field cannot be an array element, '${path}' in doc with ${shortText(doc)}`,
      );
    }
  }
  refuseTarget(doc, target);
}

/** True when a path goes through an array on its way (`list.0`, `items.name`). */
function passesThroughArray(doc: Document, path: string): boolean {
  let current: unknown = doc;
  for (const part of path.split(".")) {
    if (Array.isArray(current)) return true;
    if (!isPlainObject(current)) return false;
    current = current[part];
  }
  return false;
}

/** What a dotted path reaches: a value (undefined when missing), or the element that blocks it. */
type Reached = { value: unknown } | { blockedBy: string; element: unknown; part: string };

function reach(doc: Document, path: string): Reached {
  const parts = path.split(".");
  let current: unknown = doc;
  let name = "";
  for (const part of parts) {
    let next: unknown;
    if (isPlainObject(current)) next = current[part];
    else if (Array.isArray(current) && /^\d+$/.test(part)) next = current[Number(part)];
    else return { blockedBy: name, element: current, part };
    if (next === undefined) return { value: undefined };
    current = next;
    name = part;
  }
  return { value: current };
}

/** The value at a path the update will create or write; refused when a non-document is in the way. */
function refuseTarget(doc: Document, path: string): Reached {
  const at = reach(doc, path);
  if ("blockedBy" in at) {
    throw new CommandError(
      "PathNotViable",
      `Cannot create field '${at.part}' in element {${at.blockedBy}: ${shortText(at.element)}}`,
    );
  }
  return at;
}

/** Refuses an operator whose field (or argument) has a type it cannot work on. */
function refuseOperand(doc: Document, op: string, path: string, current: unknown, arg: unknown): void {
  if (op === "$inc" || op === "$mul") {
    if (numberKind(arg) === undefined) {
      const verb = op === "$inc" ? "increment" : "multiply";
      throw new CommandError("TypeMismatch", `Cannot ${verb} with non-numeric argument: {${path}: ${shortText(arg)}}`);
    }
    if (current !== undefined && numberKind(current) === undefined) {
      throw new CommandError(
        "TypeMismatch",
        `Cannot apply ${op} to a value of non-numeric type. {_id: ${
          shortText(doc._id)
        }} has the field '${path}' of non-numeric type ${bsonTypeOf(current)}`,
      );
    }
  }
  if (current === undefined || Array.isArray(current)) return;
  if (op === "$push" || op === "$addToSet") {
    throw new CommandError(
      "BadValue",
      `The field '${path}' must be an array but is of type ${bsonTypeOf(current)} in document {_id: ${
        shortText(doc._id)
      }}`,
    );
  }
  if (op === "$pop") {
    throw new CommandError(
      "TypeMismatch",
      `Path '${path}' contains an element of non-array type '${bsonTypeOf(current)}'`,
    );
  }
  if (op === "$pull" || op === "$pullAll") {
    throw new CommandError("BadValue", "Cannot apply $pull to a non-array value");
  }
}

/** A value as MongoDB's messages print it, shortened. */
function shortText(v: unknown): string {
  return valueText(v, 5);
}

/** The field paths an operator update writes: every operator's fields, and `$rename`'s targets. */
export function writtenPaths(spec: Document): string[] {
  const paths: string[] = [];
  for (const op in spec) {
    const fields = spec[op];
    if (!isPlainObject(fields)) continue;
    for (const path in fields) {
      paths.push(path);
      if (op === "$rename" && typeof fields[path] === "string") paths.push(fields[path]);
    }
  }
  return paths;
}

/**
 * Refuses an update that writes one path twice, or a path and a field inside it (`{$inc: {a: 1},
 * $set: {a: 5}}`, `{$set: {o: {}}, $unset: {"o.b": ""}}`), as MongoDB does when it parses the
 * update, `$setOnInsert` included. Checked before anything rewrites the operators: the engine
 * turns some `$inc`s into `$set`s, which would otherwise hide the conflict.
 */
function refuseConflictingPaths(spec: Document): void {
  const paths = writtenPaths(spec);
  if (paths.length < 2) return;
  const written = new Set<string>();
  for (const path of paths) {
    if (written.has(path)) throw conflictAt(path, path);
    written.add(path);
  }
  for (const path of paths) {
    for (let dot = path.indexOf("."); dot !== -1; dot = path.indexOf(".", dot + 1)) {
      const prefix = path.slice(0, dot);
      if (written.has(prefix)) throw conflictAt(path, prefix);
    }
  }
  refuseMixedArrayNodes(paths);
}

/**
 * Refuses a field reached both through `$[]` or `$[identifier]` and by name or index (`a.$[i]`
 * beside `a.0`): MongoDB's update tree holds an array node or an object node there, not both,
 * and the path that comes second is the one it names.
 */
function refuseMixedArrayNodes(paths: readonly string[]): void {
  if (!paths.some((path) => path.includes("$["))) return;
  const throughElements = new Map<string, boolean>();
  for (const path of paths) {
    const parts = path.split(".");
    for (let k = 1; k < parts.length; k++) {
      const node = parts.slice(0, k).join(".");
      const elements = isArrayUpdatePart(parts[k]);
      const first = throughElements.get(node);
      if (first === undefined) throughElements.set(node, elements);
      else if (first !== elements) throw conflictAt(path, node);
    }
  }
}

function conflictAt(path: string, prefix: string): CommandError {
  return new CommandError(
    "ConflictingUpdateOperators",
    `Updating the path '${path}' would create a conflict at '${prefix}'`,
  );
}
