import type { Document } from "bson";
import { evalExpr, ProcessingMode } from "mingo/core";
import type { Options } from "mingo/types";
import { isPlainObject } from "../bson.ts";
import { copyValue, isHazardousName, isMarkedHazardous, markHazardous, withValueAt } from "../field-names.ts";
import { aliasDocument, aliasExpression, aliasVariables, needsAliases, spelledBack } from "./aliases.ts";
import type { LookupSpec } from "./join-specs.ts";
import type { CollectionResolver, JoinWork, PipelineOptions } from "./joins.ts";
import { jsonSchemaPredicate } from "./json-schema.ts";
import { ENGINE_CONTEXT } from "./mingo.ts";
import { PAUSE, type Paused } from "./interrupts.ts";
import { lookupMemory } from "./memory.ts";
import type { Variables } from "./variables.ts";

// `$lookup`, run by the engine rather than by mingo: for each input document, one read of the
// foreign collection through the planner, as MongoDB runs it. The equality on
// localField/foreignField becomes a `$match` in front of the sub-pipeline (after a view's
// stages, and after a leading `$documents`), ANDed with the sub-pipeline's own leading
// `$match`, so that an index on the foreign field (and the sub-pipeline's sort) serves the
// read and a `$limit` in the sub-pipeline bounds it. mingo's `$lookup` read the whole foreign
// collection for every stage, and with both a pipeline and the join fields ran the pipeline
// over every foreign document.

/**
 * The values at a path of a document, as MongoDB's `$lookup` collects them
 * (document_path_support.cpp): arrays along the path are walked into their sub-documents,
 * numeric components index into arrays, and an array at the end gives each of its elements
 * (an array inside it stays one value). Missing gives nothing.
 */
function valuesAtPath(doc: Document, path: readonly string[], from = 0, out: unknown[] = []): unknown[] {
  // Own fields only: `constructor` or `toString` missing from the document is missing (null to
  // the join), not Object.prototype's function.
  let value: unknown = Object.hasOwn(doc, path[from]) ? doc[path[from]] : undefined;
  let i = from + 1;
  while (i < path.length && Array.isArray(value) && /^(0|[1-9][0-9]*)$/.test(path[i])) value = value[Number(path[i++])];
  if (i === path.length) {
    if (Array.isArray(value)) out.push(...value.filter((element) => element !== undefined));
    else if (value !== undefined) out.push(value);
  } else if (Array.isArray(value)) {
    for (const element of value) if (isPlainObject(element)) valuesAtPath(element, path, i, out);
  } else if (isPlainObject(value)) {
    valuesAtPath(value, path, i, out);
  }
  return out;
}

/**
 * The filter a `$lookup` ANDs into its read for one input document (makeMatchStageFromInput):
 * `$eq` of the one local value, `$in` of several, or an `$or` of `$eq`s when one is a regex
 * (which `$in` would match as a pattern). No value at all is null, which matches foreign
 * documents whose field is null or missing.
 */
function joinFilter(doc: Document, localField: string, foreignField: string): Document {
  const values = valuesAtPath(doc, localField.split("."));
  if (values.length === 0) values.push(null);
  if (values.length === 1) return { [foreignField]: { $eq: values[0] } };
  if (values.some((value) => value instanceof RegExp)) {
    return { $or: values.map((value) => ({ [foreignField]: { $eq: value } })) };
  }
  return { [foreignField]: { $in: values } };
}

/** The sub-pipeline with the join's `$match` in front: after `$documents`, merged with a leading `$match`. */
function withJoin(pipeline: readonly Document[], filter: Document): Document[] {
  const at = pipeline.length > 0 && "$documents" in pipeline[0] ? 1 : 0;
  const next = pipeline[at];
  const match = next !== undefined && isPlainObject(next.$match)
    ? { $match: { $and: [filter, next.$match] } }
    : undefined;
  return [...pipeline.slice(0, at), match ?? { $match: filter }, ...pipeline.slice(match ? at + 1 : at)];
}

/**
 * The stage's `let` variables for one input document, evaluated with the enclosing variables
 * in scope. They are copies: evaluated without cloning, `$$ROOT` (or `$sub`) is the input
 * document itself, a stored one, and a stage of the sub-pipeline writing into a value built
 * from it (`$addFields: {"r.x": 1}` after `r: "$$doc"`) would write into storage.
 */
function letValues(doc: Document, spec: Document, options: PipelineOptions): Variables {
  const mingo = {
    context: ENGINE_CONTEXT,
    collation: options.collation,
    variables: options.variables,
    processingMode: ProcessingMode.CLONE_OFF,
    jsonSchemaValidator: jsonSchemaPredicate,
  } as unknown as Options;
  // mingo evaluates them on names spelled for it (aliases.ts); the values come back spelled as stored.
  const named = needsAliases(spec);
  const values = spelledBack(
    () =>
      evalExpr(aliasDocument(doc), named ? aliasExpression(spec) : spec, {
        ...mingo,
        variables: aliasVariables(options.variables),
      }),
    named,
  );
  return copyValue(values) as Variables;
}

/** Whether a dotted path has a component such as `constructor` or `__proto__`. */
function isHazardousPath(path: string): boolean {
  return path.split(".").some(isHazardousName);
}

/** One input document's matches: one planned read of the foreign collection, then the rest of the sub-pipeline. */
function matchesOf(
  doc: Document,
  spec: LookupSpec,
  resolve: CollectionResolver,
  options: PipelineOptions,
  work: JoinWork | undefined,
): Iterator<Paused<Document>> {
  const variables = spec.let ? { ...options.variables, ...letValues(doc, spec.let, options) } : options.variables;
  const stages = spec.localField !== undefined && spec.foreignField !== undefined
    ? withJoin(spec.pipeline, joinFilter(doc, spec.localField, spec.foreignField))
    : spec.pipeline;
  const nested = work?.nested();
  const sub: PipelineOptions = {
    collation: options.collation,
    variables,
    joinWork: nested && (() => nested),
    sliced: options.sliced,
  };
  return resolve.read(spec.from, stages, sub, work);
}

/**
 * Whether every input document gets the same matches: no `let` and no localField/foreignField,
 * so nothing of the input reaches the sub-pipeline, and nothing random in it. MongoDB runs such
 * a sub-pipeline once and reuses its result, `$sample` and `$rand` excepted.
 */
function uncorrelated(spec: LookupSpec): boolean {
  const noLet = spec.let === undefined || Object.keys(spec.let).length === 0;
  return noLet && spec.localField === undefined && !mentionsRandom(spec.pipeline);
}

/** Whether `$sample` or `$rand` appears anywhere in `value`. */
function mentionsRandom(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(mentionsRandom);
  if (!isPlainObject(value)) return false;
  return Object.entries(value).some(([key, inner]) => key === "$sample" || key === "$rand" || mentionsRandom(inner));
}

/**
 * Runs a checked `$lookup` over a lazy input: each document comes out with the array of its
 * matches at `as` (the input document itself is never written; the matches are the stored
 * documents, which the caller clones before a later stage writes). `work` counts the reads
 * and the output, for explain. The pauses of the input and of each foreign read pass on, so a
 * sliced consumer yields inside a long foreign read too; the time spent paused is not counted.
 */
export function* runLookup(
  input: Iterator<Paused<Document>>,
  spec: LookupSpec,
  resolve: CollectionResolver,
  options: PipelineOptions,
  work?: JoinWork,
): Generator<Paused<Document>> {
  // The matches every input document shares, once read (the array is shared: a later stage
  // that writes gets copies, see runPipeline).
  let shared: Document[] | undefined;
  const reuse = uncorrelated(spec);
  const path = spec.as.split(".");
  for (;;) {
    let started = work ? performance.now() : 0;
    const step = input.next();
    if (step.done) return;
    if (step.value === PAUSE) {
      yield PAUSE;
      continue;
    }
    let matches = shared;
    if (matches === undefined) {
      matches = [];
      // The matches, counted as they come (document_source_lookup.cpp): past 100 MiB for one
      // input document, 4568, before the engine holds more.
      const memory = lookupMemory(spec.from ?? "");
      const read = matchesOf(step.value, spec, resolve, options, work);
      for (let match = read.next(); !match.done; match = read.next()) {
        if (match.value !== PAUSE) {
          memory.addValue(match.value);
          matches.push(match.value);
          continue;
        }
        if (work) work.millis += performance.now() - started;
        yield PAUSE;
        if (work) started = performance.now();
      }
      if (reuse) shared = matches;
    }
    const value = withValueAt(step.value, path, matches);
    // Marked for the stages mingo runs next when a name such as `constructor` is in it (field-names.ts).
    if (isMarkedHazardous(step.value) || isHazardousPath(spec.as) || matches.some(isMarkedHazardous)) {
      markHazardous(value);
    }
    if (work) {
      work.returned++;
      work.millis += performance.now() - started;
    }
    yield value;
  }
}
