import { type Document, ObjectId } from "bson";
import { ProcessingMode } from "mingo";
import { Aggregator } from "mingo/aggregator";
import { isPlainObject } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { collect, runRead } from "../query/plan.ts";
import { applyUpdate } from "../query/update.ts";
import { ENGINE_CONTEXT } from "../query/mingo.ts";
import type { PipelineOptions } from "../query/pipeline.ts";
import type { Variables } from "../query/variables.ts";
import { type Collation, parseCollation, sameCollation } from "../store/collation.ts";
import { Collection } from "../store/collection.ts";
import { compareValues, keyOf } from "../store/values.ts";
import { type CommandContext, commit, startWrites } from "./context.ts";
import { duplicateError } from "./duplicate.ts";
import { checkStorable } from "./storable.ts";
import { storeVersion } from "./updates.ts";
import { bypassValidation, checkValid } from "./validation.ts";
import { refuseViewWrite } from "./views.ts";
import { prepareInsert } from "./write.ts";
import { namespace } from "./args.ts";
import { killDropped } from "./plan-kills.ts";
import { checkCollectionName } from "./names.ts";
import { ownField, setField } from "../field-names.ts";

/** A pipeline's `$out` or `$merge` stage, parsed. */
export type OutputStage = { kind: "$out"; into: string } | ({ kind: "$merge" } & MergeSpec);

interface MergeSpec {
  into: string;
  on: string[];
  whenMatched: "replace" | "keepExisting" | "merge" | "fail" | Document[];
  whenNotMatched: "insert" | "discard" | "fail";
  let?: Document;
}

const WHEN_MATCHED = new Set(["replace", "keepExisting", "merge", "fail"]);
const WHEN_NOT_MATCHED = new Set(["insert", "discard", "fail"]);

/** The target collection of `$out`/`$merge`: a name, or `{db, coll}` naming the command's own database; a valid name. */
function target(ctx: CommandContext, stage: string, value: unknown): string {
  const name = targetName(ctx, stage, value);
  checkCollectionName(ctx.db, name);
  return name;
}

function targetName(ctx: CommandContext, stage: string, value: unknown): string {
  if (typeof value === "string" && value !== "") return value;
  if (isPlainObject(value) && typeof value.coll === "string" && value.coll !== "") {
    if (value.db !== undefined && value.db !== ctx.db) {
      throw new CommandError(
        "NotImplemented",
        `${stage} into another database (${String(value.db)}) is not supported by the embedded engine`,
      );
    }
    if (value.timeseries !== undefined) {
      throw new CommandError("NotImplemented", `${stage} into a time-series collection is not supported`);
    }
    return value.coll;
  }
  throw new CommandError("FailedToParse", `${stage} needs a collection name, or {db, coll}`);
}

function parseMerge(ctx: CommandContext, raw: unknown): MergeSpec {
  const spec = typeof raw === "string" ? { into: raw } : raw;
  if (!isPlainObject(spec)) {
    throw new CommandError("FailedToParse", "$merge takes a collection name or a document with 'into'");
  }
  for (const field of Object.keys(spec)) {
    if (!["into", "on", "whenMatched", "whenNotMatched", "let"].includes(field)) {
      throw new CommandError("Location40415", `BSON field '$merge.${field}' is an unknown field.`);
    }
  }
  const on = spec.on === undefined ? ["_id"] : Array.isArray(spec.on) ? spec.on : [spec.on];
  if (on.length === 0 || !on.every((f) => typeof f === "string" && f !== "")) {
    throw new CommandError("FailedToParse", "$merge 'on' must be a field name or a non-empty array of field names");
  }
  const whenMatched = spec.whenMatched ?? "merge";
  if (!Array.isArray(whenMatched) && !WHEN_MATCHED.has(whenMatched as string)) {
    throw new CommandError(
      "BadValue",
      "$merge 'whenMatched' must be replace, keepExisting, merge, fail or an update pipeline",
    );
  }
  const whenNotMatched = spec.whenNotMatched ?? "insert";
  if (!WHEN_NOT_MATCHED.has(whenNotMatched as string)) {
    throw new CommandError("BadValue", "$merge 'whenNotMatched' must be insert, discard or fail");
  }
  if (spec.let !== undefined && !Array.isArray(whenMatched)) {
    throw new CommandError("Location51199", "$merge 'let' is only allowed when 'whenMatched' is a pipeline");
  }
  if (spec.let !== undefined && !isPlainObject(spec.let)) {
    throw new CommandError("TypeMismatch", "$merge 'let' must be an object");
  }
  return {
    into: target(ctx, "$merge", spec.into),
    on: on as string[],
    whenMatched: whenMatched as MergeSpec["whenMatched"],
    whenNotMatched: whenNotMatched as MergeSpec["whenNotMatched"],
    let: spec.let as Document | undefined,
  };
}

/**
 * Splits a pipeline into the stages that compute documents and its final `$out`/`$merge`, if
 * any. Either stage anywhere but last is refused, as MongoDB does (code 40601).
 */
export function outputStage(ctx: CommandContext, pipeline: Document[]): { stages: Document[]; output?: OutputStage } {
  const last = pipeline.at(-1);
  pipeline.slice(0, -1).forEach((stage) => refuseNested(stage, true));
  if (last === undefined) return { stages: pipeline };
  const stages = pipeline.slice(0, -1);
  if ("$out" in last) return { stages, output: { kind: "$out", into: target(ctx, "$out", last.$out) } };
  if ("$merge" in last) return { stages, output: { kind: "$merge", ...parseMerge(ctx, last.$merge) } };
  refuseNested(last, true);
  return { stages: pipeline };
}

/** `$out`/`$merge` inside a sub-pipeline ($facet, $lookup, $unionWith), or not last, is refused. */
function refuseNested(value: unknown, topLevel: boolean): void {
  if (Array.isArray(value)) value.forEach((v) => refuseNested(v, false));
  else if (isPlainObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (k === "$out" || k === "$merge") {
        if (topLevel) throw new CommandError("Location40601", `${k} can only be the final stage in the pipeline`);
        throw new CommandError("Location51047", `${k} is not allowed within a sub-pipeline`);
      }
      refuseNested(v, false);
    }
  }
}

/**
 * Writes the pipeline's output. `$out` replaces the target's documents all at once (its
 * indexes kept): the new contents are checked in full first, so a duplicate or an unstorable
 * document leaves the target as it was. `$merge` writes document by document, like MongoDB:
 * writes made before a failure stay. Both go through the engine's write path (storage checks,
 * unique indexes, journal).
 */
export async function writeOutput(
  ctx: CommandContext,
  output: OutputStage,
  results: Document[],
  options: PipelineOptions,
): Promise<void> {
  refuseViewWrite(ctx, output.into);
  if (output.kind === "$out") return await replaceContents(ctx, output.into, results);
  return await merge(ctx, output, results, options);
}

async function replaceContents(ctx: CommandContext, name: string, results: Document[]): Promise<void> {
  const existing = ctx.engine.catalog.get(ctx.db, name);
  const staging = new Collection(ctx.db, name, existing?.options);
  for (const spec of existing?.indexes.values() ?? []) staging.addIndex(spec);
  const bypass = bypassValidation(ctx.body);
  const prepared = results.map((doc) => {
    const next = prepareInsert(doc);
    checkStorable(next, "insert", ctx.engine.limits.maxBsonObjectSize);
    if (existing) checkValid(existing, next, undefined, bypass);
    const dup = staging.findDuplicate(next, true);
    if (dup) throw duplicateError(ctx.db, name, dup);
    staging.put(next);
    return next;
  });
  const writes = startWrites(ctx);
  const coll = writes.ensure(ctx.db, name);
  for (const doc of collect(coll.docs.iterate())) writes.delete(coll, doc._id);
  for (const doc of prepared) writes.put(coll, doc);
  await commit(ctx, writes);
  // MongoDB's $out renames its temporary collection over the target (dropTarget): the target's
  // open cursors are killed, where the engine's reading on would mix old and new documents.
  if (existing) killDropped(ctx.engine.cursors, [namespace(ctx.db, name)]);
}

async function merge(
  ctx: CommandContext,
  spec: MergeSpec & { kind: "$merge" },
  results: Document[],
  options: PipelineOptions,
): Promise<void> {
  const { collation, variables } = options;
  const existing = ctx.engine.catalog.get(ctx.db, spec.into);
  checkMergeKey(existing, spec.on, collation);
  const writes = startWrites(ctx);
  const coll = writes.ensure(ctx.db, spec.into);
  const maxSize = ctx.engine.limits.maxBsonObjectSize;
  const bypass = bypassValidation(ctx.body);
  try {
    for (const result of results) {
      const doc = spec.on.length === 1 && spec.on[0] === "_id" && result._id === undefined
        ? { _id: new ObjectId(), ...result }
        : result;
      const match = collect(runRead(coll, { filter: mergeFilter(doc, spec.on), limit: 1, collation }))[0];
      if (!match) {
        if (spec.whenNotMatched === "fail") {
          throw new CommandError(
            "Location13113",
            "$merge could not find a matching document in the target collection for at least one document in the source collection",
          );
        }
        if (spec.whenNotMatched === "insert") storeVersion(writes, coll, prepareInsert(doc), true, maxSize, bypass);
        continue;
      }
      const next = mergedDocument(ctx, spec, match, doc, { collation, variables });
      if (next && keyOf(next) !== keyOf(match)) storeVersion(writes, coll, next, false, maxSize, bypass);
    }
  } finally {
    await commit(ctx, writes);
  }
}

/**
 * `on` other than `_id` must be backed by a unique index on exactly those fields, neither
 * sparse nor partial (whose uniqueness leaves documents out), as MongoDB requires (code 51183).
 */
function checkMergeKey(coll: Collection | undefined, on: string[], collation: Collation | undefined): void {
  if (on.length === 1 && on[0] === "_id") return;
  const wanted = [...on].sort().join(",");
  // The index must also order strings as the aggregate compares them, else "unique" means something else.
  const backed = coll?.allIndexes().some((spec) =>
    spec.unique && !spec.sparse && spec.partialFilterExpression === undefined &&
    Object.keys(spec.key).sort().join(",") === wanted &&
    sameCollation(parseCollation(spec.collation), collation)
  );
  if (!backed) throw new CommandError("Location51183", "Cannot find index to verify that join fields will be unique");
}

function mergeFilter(doc: Document, on: string[]): Document {
  const filter: Document = {};
  for (const field of on) {
    const value = field.split(".").reduce<unknown>(
      (v, part) => (isPlainObject(v) ? ownField(v, part) : undefined),
      doc,
    );
    if (value === undefined || value === null || Array.isArray(value)) {
      throw new CommandError(
        "Location51132",
        `$merge write error: 'on' field '${field}' cannot be missing, null, undefined or an array`,
      );
    }
    setField(filter, field, { $eq: value });
  }
  return filter;
}

/** The target document after a match, or undefined when it stays as it is. */
function mergedDocument(
  ctx: CommandContext,
  spec: MergeSpec,
  target: Document,
  doc: Document,
  options: PipelineOptions,
): Document | undefined {
  const { whenMatched } = spec;
  if (whenMatched === "keepExisting") return undefined;
  if (whenMatched === "fail") {
    throw new CommandError(
      "DuplicateKey",
      `$merge failed: a document of ${ctx.db}.${spec.into} matches on ${spec.on.join(", ")} and whenMatched is 'fail'`,
    );
  }
  if (Array.isArray(whenMatched)) {
    return applyUpdate(target, whenMatched, {
      collation: options.collation,
      variables: pipelineVariables(spec.let, doc, options.variables),
    }).doc;
  }
  if (doc._id !== undefined && compareValues(doc._id, target._id) !== 0) {
    throw new CommandError(
      "ImmutableField",
      "$merge failed to update the matching document, Performing an update on the path '_id' would modify the immutable field '_id'",
    );
  }
  return whenMatched === "replace" ? { _id: target._id, ...doc } : { ...target, ...doc, _id: target._id };
}

/** `$$new` (or the stage's own `let`, evaluated against the incoming document) plus the command's variables. */
function pipelineVariables(stageLet: Document | undefined, doc: Document, variables?: Variables): Variables {
  if (!stageLet) return { ...variables, new: doc };
  const [values] = new Aggregator([{ $replaceWith: stageLet }], {
    processingMode: ProcessingMode.CLONE_INPUT,
    context: ENGINE_CONTEXT,
  }).run<Document>([doc]);
  return { ...variables, ...values };
}
