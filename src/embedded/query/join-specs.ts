import type { Document } from "bson";
import { OpType } from "mingo/core";
import { isPlainObject, valueText } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { wrongType } from "../field-errors.ts";
import { bsonTypeOf } from "./bson-types.ts";
import { stageName } from "./joins.ts";
import { ENGINE_CONTEXT } from "./mingo.ts";

// The arguments of `$lookup` and `$unionWith`, checked as MongoDB 7.0 checks them, in its
// order (the stage's "lite" parse, then its full one) and with its codes and words. The
// engine runs both stages itself (lookup.ts, union-with.ts), so their arguments, and the stage
// names of their sub-pipelines, are checked when the pipeline is built, whether or not a
// document ever reaches them. The rest of a sub-pipeline (its stages' arguments, and `let`'s
// expressions) is checked by mingo when a document reaches the join: an unused malformed
// join passes where MongoDB refuses it.

/** A checked `$lookup`. */
export interface LookupSpec {
  /** The collection or view joined; undefined when the pipeline starts with `$documents`. */
  from: string | undefined;
  /** Where the matches go (a dotted path sets a field inside a sub-document). */
  as: string;
  /** The equality join, when both are given. */
  localField?: string;
  foreignField?: string;
  /** The stage's own variables: expressions evaluated on each input document. */
  let?: Document;
  /** The sub-pipeline (empty for the plain localField/foreignField form). */
  pipeline: Document[];
}

/** A checked `$unionWith`. */
export interface UnionWithSpec {
  /** The collection or view whose documents follow the input; undefined when the pipeline starts with `$documents`. */
  coll: string | undefined;
  pipeline: Document[];
}

function failed(message: string): CommandError {
  return new CommandError("FailedToParse", message);
}

/** A sub-pipeline as MongoDB reads one (parsePipelineFromBSON): an array of objects. */
function pipelineArgument(value: unknown): Document[] {
  if (!Array.isArray(value)) throw new CommandError("TypeMismatch", "'pipeline' option must be specified as an array");
  for (const stage of value) {
    if (!isPlainObject(stage)) {
      throw new CommandError("TypeMismatch", "Each element of the 'pipeline' array must be an object");
    }
  }
  return value as Document[];
}

function startsWithDocuments(pipeline: readonly Document[] | undefined): boolean {
  return pipeline !== undefined && pipeline.length > 0 && "$documents" in pipeline[0];
}

/**
 * Checks every stage of a sub-pipeline: a stage the engine runs itself is checked in full, any
 * other must be one mingo knows (40324 otherwise, as the top-level pipeline's stages are).
 */
function checkSubPipeline(pipeline: readonly Document[]): void {
  for (const stage of pipeline) {
    const name = stageName(stage);
    if (name === "$lookup") parseLookup(stage[name]);
    else if (name === "$unionWith") parseUnionWith(stage[name]);
    else if (!ENGINE_CONTEXT.getOperator(OpType.PIPELINE, name)) {
      throw new CommandError("Location40324", `Unrecognized pipeline stage name: '${name}'`);
    }
  }
}

/** `from`, as the lite parse checks it: a collection name, or absent when the pipeline starts with `$documents`. */
function lookupFrom(spec: Document): string | undefined {
  const { from } = spec;
  if (from === undefined) {
    if (spec.pipeline === undefined) throw failed("must specify 'pipeline' when 'from' is empty");
    if (!startsWithDocuments(pipelineArgument(spec.pipeline))) {
      throw failed("$lookup stage without explicit collection must have a pipeline with $documents as first stage");
    }
    return undefined;
  }
  if (isPlainObject(from)) {
    throw failed(
      `$lookup with syntax {from: {db:<>, coll:<>},..} is not supported for db: ${from.db ?? ""} and coll: ${
        from.coll ?? ""
      }`,
    );
  }
  if (typeof from !== "string") throw failed(`$lookup 'from' field must be a string, but found ${bsonTypeOf(from)}`);
  if (from === "") {
    throw new CommandError("InvalidNamespace", "invalid $lookup namespace: the collection name is empty");
  }
  return from;
}

/** MongoDB's rule for a user variable's name (variable_validation.cpp), with the engine's code for a bad `let` name. */
function checkVariableName(name: string): void {
  if (name === "") throw failed("empty variable names are not allowed");
  if (!/^[a-z\u0080-\uffff]/.test(name)) {
    throw failed(`'${name}' starts with an invalid character for a user variable name`);
  }
  const bad = /[^A-Za-z0-9_\u0080-\uffff]/.exec(name.slice(1));
  if (bad) throw failed(`'${name}' contains an invalid character for a variable name: '${bad[0]}'`);
}

/** The fields of a `$lookup` in their order, as the full parse reads them; an empty string counts as absent, as in MongoDB. */
function lookupArguments(spec: Document): Omit<LookupSpec, "from" | "pipeline"> & { pipeline?: Document[] } {
  const out: Omit<LookupSpec, "from" | "pipeline"> & { pipeline?: Document[] } = { as: "" };
  for (const [name, value] of Object.entries(spec)) {
    if (name === "pipeline") out.pipeline = pipelineArgument(value);
    else if (name === "let") {
      if (!isPlainObject(value)) {
        throw failed(
          `$lookup argument 'let: ${valueText(value)}' must be an object, is type ${bsonTypeOf(value)}`,
        );
      }
      out.let = value;
    } else if (name !== "from") {
      if (typeof value !== "string") {
        throw failed(
          `$lookup argument '${name}: ${valueText(value)}' must be a string, is type ${bsonTypeOf(value)}`,
        );
      }
      if (name !== "as" && name !== "localField" && name !== "foreignField") {
        throw failed(`unknown argument to $lookup: ${name}`);
      }
      if (value !== "") out[name] = value;
    }
  }
  return out;
}

/** The form's rules: a pipeline, or both join fields (or both); `let` only with a pipeline. */
function checkLookupForm(args: ReturnType<typeof lookupArguments>): void {
  if (args.as === "") throw failed("must specify 'as' field for a $lookup");
  const fields = [args.localField, args.foreignField].filter((field) => field !== undefined).length;
  if (args.pipeline !== undefined) {
    if (fields === 1) {
      throw failed("$lookup requires both or neither of 'localField' and 'foreignField' to be specified");
    }
    return;
  }
  if (fields !== 2) {
    throw failed("$lookup requires either 'pipeline' or both 'localField' and 'foreignField' to be specified");
  }
  if (args.let !== undefined) throw failed("$lookup with a 'let' argument must also specify 'pipeline'");
}

/** The `$`-prefixed field names a FieldPath allows (DBRef's, and the server's metadata fields). */
const DOLLAR_FIELDS = new Set(["$id", "$ref", "$db", "$sortKey", "$recordId", "$searchSortValues", "$searchScore"]);

/**
 * Checks a path as MongoDB's FieldPath constructor does (field_path.cpp), in its order: no
 * trailing '.' (40353), then each component non-empty (15998), not `$`-prefixed (16410) and
 * without a NUL (16411, whose C++ message ends at the NUL it names).
 */
function checkFieldPath(path: string): void {
  if (path.endsWith(".")) throw new CommandError("Location40353", "FieldPath must not end with a '.'.");
  for (const name of path.split(".")) {
    if (name === "") throw new CommandError("Location15998", "FieldPath field names may not be empty strings.");
    if (name.startsWith("$") && !DOLLAR_FIELDS.has(name)) {
      throw new CommandError(
        "Location16410",
        "FieldPath field names may not start with '$'. Consider using $getField or $setField.",
      );
    }
    if (name.includes("\0")) throw new CommandError("Location16411", "FieldPath field names may not contain '");
  }
}

/**
 * Checks a `$lookup` stage's argument and reads it: every form (localField/foreignField;
 * `let` and `pipeline`; both together; `$documents` instead of `from`), with MongoDB's errors
 * for a malformed one, its sub-pipeline's stages included.
 */
export function parseLookup(raw: unknown): LookupSpec {
  if (!isPlainObject(raw)) {
    throw failed(`the $lookup stage specification must be an object, but found ${bsonTypeOf(raw)}`);
  }
  const from = lookupFrom(raw);
  const args = lookupArguments(raw);
  checkLookupForm(args);
  // The stage keeps `as`, then the join fields, as FieldPaths: built (and checked) in that order.
  for (const path of [args.as, args.localField, args.foreignField]) if (path !== undefined) checkFieldPath(path);
  Object.keys(args.let ?? {}).forEach(checkVariableName);
  const pipeline = args.pipeline ?? [];
  checkSubPipeline(pipeline);
  return { ...args, from, pipeline };
}

/**
 * Checks a `$unionWith` stage's argument and reads it: a collection name, or `{coll, pipeline}`
 * (a pipeline starting with `$documents` needs no `coll`), with MongoDB's errors.
 */
export function parseUnionWith(raw: unknown): UnionWithSpec {
  if (typeof raw === "string") return { coll: raw, pipeline: [] };
  if (!isPlainObject(raw)) {
    throw failed(`the $unionWith stage specification must be an object or string, but found ${bsonTypeOf(raw)}`);
  }
  for (const field of Object.keys(raw)) {
    if (field !== "coll" && field !== "pipeline") {
      throw new CommandError("Location40415", `BSON field '$unionWith.${field}' is an unknown field.`);
    }
  }
  const { coll, pipeline } = raw;
  if (coll !== undefined && typeof coll !== "string") throw wrongType("$unionWith.coll", coll, "string");
  if (pipeline !== undefined && !Array.isArray(pipeline)) throw wrongType("$unionWith.pipeline", pipeline, "array");
  (pipeline as unknown[] | undefined)?.forEach((stage, i) => {
    if (!isPlainObject(stage)) throw wrongType(`$unionWith.pipeline.${i}`, stage, "object");
  });
  if (coll === undefined && !startsWithDocuments(pipeline)) {
    throw failed("$unionWith stage without explicit collection must have a pipeline with $documents as first stage");
  }
  checkSubPipeline(pipeline ?? []);
  return { coll, pipeline: pipeline ?? [] };
}
