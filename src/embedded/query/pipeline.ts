import type { Document } from "bson";
import { ProcessingMode } from "mingo";
import { Aggregator } from "mingo/aggregator";
import type { Options } from "mingo/types";
import { toNumber } from "../bson.ts";
import { aliasCounter, copyValue } from "../field-names.ts";
import {
  aliasDocument,
  aliasPipeline,
  aliasVariables,
  needsAliases,
  spelledBackIterator,
  unaliasedError,
} from "./aliases.ts";
import { isBsonNumber } from "./bson-types.ts";
import { parseLookup, parseUnionWith } from "./join-specs.ts";
import { nestedPipelines } from "./read-stages.ts";
import { type CollectionResolver, type PipelineOptions, stageName } from "./joins.ts";
import { jsonSchemaPredicate } from "./json-schema.ts";
import { runLookup } from "./lookup.ts";
import { ENGINE_CONTEXT } from "./mingo.ts";
import { runUnionWith } from "./union-with.ts";
import { PAUSE, type Paused, withoutPauses } from "./interrupts.ts";
import { approximateSize, exceeded } from "./memory.ts";

// Re-exported: the commands read a pipeline's stage names, resolver and options from here.
export { stageName };
export type { CollectionResolver, PipelineOptions };

/** Stages that never write into the documents they receive, so stored ones can be passed in. */
const NON_MUTATING = new Set([
  "$match",
  "$sort",
  "$skip",
  "$limit",
  "$group",
  "$count",
  "$sortByCount",
  "$lookup",
  "$facet",
]);
/** Stages that bring in documents of another collection by reference. */
const JOINS = new Set(["$lookup", "$unionWith", "$graphLookup"]);
/** The joins the engine runs itself, each read through the planner (the others, `$graphLookup`, are mingo's). */
const ENGINE_JOINS = new Set(["$lookup", "$unionWith"]);

/** True when a stage (or a pipeline nested in it) may write into its input documents. */
function mutates(stage: Document): boolean {
  const name = stageName(stage);
  if (!NON_MUTATING.has(name)) return true;
  return nestedPipelines(stage).some((nested) => nested.some(mutates));
}

/**
 * True when a stage of the command's own pipeline may write into its input documents. The
 * engine's joins never do: they build new documents, and their pipelines run on the joined
 * collection's.
 */
function writesInput(stage: Document): boolean {
  return !ENGINE_JOINS.has(stageName(stage)) && mutates(stage);
}

/**
 * True when a segment of mingo's stages may write into the documents its joins (mingo's
 * `$graphLookup`, and the joins inside `$facet`) take from the resolver: some stage other
 * than a `$graphLookup` (which copies what it finds, and ends its segment) writes.
 */
function writesJoined(stages: readonly Document[]): boolean {
  return stages.some((stage) => stageName(stage) !== "$graphLookup" && mutates(stage));
}

/**
 * Copies of the documents a join passed on, for stages that write (pauses pass as they are). A
 * document whose values are shared many times over (stages that nest `$x` twice into itself)
 * would take longer to copy than the process lives: past {@link COPYABLE} (approximately) it is
 * refused instead.
 */
function clones(source: Iterator<Paused<Document>>): Iterator<Paused<Document>> {
  return {
    next: () => {
      const step = source.next();
      if (step.done || step.value === PAUSE) return step;
      if (approximateSize(step.value, COPYABLE) > COPYABLE) {
        throw exceeded(
          `A document after a join would use too much memory (more than ${COPYABLE} bytes) to copy for the ` +
            `stages that follow, and cannot spill to disk`,
        );
      }
      return { done: false, value: copyValue(step.value) };
    },
  };
}

const COPYABLE = 256 * 1024 * 1024;

/**
 * An iterator that stays done once it is. mingo's stage iterators do not: asked again after
 * their end, `$group` (and `$bucket`, `$count`, `$unwind`...) go on computing from past their
 * last partition, which failed with "arguments must resolve to array for $sum". A cursor
 * filling a batch, or the next segment of a pipeline, may well ask again.
 */
function latched(source: Iterator<Document>): Iterator<Document> {
  let done = false;
  return {
    next: () => {
      if (done) return { done: true, value: undefined };
      const step = source.next();
      done = step.done === true;
      return step;
    },
  };
}

/** `build()`, its error (a stage mingo refuses) naming fields as the client spelled them. */
function spelledErrors<T>(build: () => T): T {
  try {
    return build();
  } catch (error) {
    throw unaliasedError(error);
  }
}

/** Each document of `input` spelled for mingo (aliases.ts): renamed when marked as holding `constructor`, `__proto__`... */
function spelledForMingo(input: Iterator<Document>): Iterator<Document> {
  return {
    next: () => {
      const step = input.next();
      return step.done ? step : { done: false, value: aliasDocument(step.value) };
    },
  };
}

/**
 * mingo's stages over `input` (documents without pauses), as one lazy stream. Names a plain
 * object already answers to (`constructor`, `__proto__`...) reach mingo renamed, in the stages,
 * the variables and the documents, and its output is spelled back (aliases.ts).
 */
function mingoStream(stages: Document[], resolve: CollectionResolver, options: PipelineOptions) {
  const since = aliasCounter.minted;
  const spelled = needsAliases(stages) ? aliasPipeline(stages) : stages;
  // Stored documents are shared, not copied: clone on the way in only if a stage writes.
  const mode = stages.some(mutates) ? ProcessingMode.CLONE_INPUT : ProcessingMode.CLONE_OFF;
  // mingo's joins get the resolver's documents, stored ones: copies when a stage may write into them.
  const copies = writesJoined(stages);
  const aggregator = spelledErrors(() =>
    new Aggregator(spelled, {
      processingMode: mode,
      context: ENGINE_CONTEXT,
      collation: options.collation as unknown as Options["collation"],
      variables: aliasVariables(options.variables),
      jsonSchemaValidator: jsonSchemaPredicate,
      collectionResolver: (name: string) => {
        const docs = (resolve.docs(name) as Document[]).map(aliasDocument);
        return copies ? docs.map(copyValue) : docs;
      },
    })
  );
  return (input: Iterator<Document>): Iterator<Document> => {
    const output = spelledErrors(() =>
      aggregator.stream({ [Symbol.iterator]: () => spelledForMingo(input) }) as Iterator<Document>
    );
    return latched(spelledBackIterator(output, since));
  };
}

/**
 * Stages that turn each document into documents of its own, whatever came before: a stream of
 * them may end at a pause and start again after it with the same output.
 */
const PER_DOCUMENT = new Set([
  "$match",
  "$project",
  "$addFields",
  "$set",
  "$unset",
  "$replaceRoot",
  "$replaceWith",
  "$unwind",
  "$redact",
]);
/**
 * Stages that hold their whole input before they give anything (in mingo, or the engine's own
 * in mingo's context): gathering the input first, across pauses, holds no more than they would.
 */
const HOLDING = new Set(["$sort", "$setWindowFields", "$bucketAuto", "$facet", "$sample", "$fill", "$densify"]);

/**
 * Runs a segment of mingo's stages over an input that may hold pauses. mingo pulls its input
 * synchronously, so a pause cannot pass through its stages; instead:
 * - stages that each work on one document at a time (the relation loader's `$unwind` and
 *   `$replaceRoot`) stream up to a pause, pass it on, and stream again after it;
 * - stages that hold their whole input anyway (a `$setWindowFields`, a `$sort`) get it gathered
 *   first, passing the pauses on, then run over it (that last run is one slice: not paused);
 * - the others (`$group` and its kin, which hold one entry per group and not their input, so
 *   gathering it would cost memory) take the input as it comes, checking the deadline at each
 *   pause: they run as one slice.
 */
function runSegment(
  stages: Document[],
  input: Iterator<Paused<Document>>,
  resolve: CollectionResolver,
  options: PipelineOptions,
): Iterator<Paused<Document>> {
  const stream = mingoStream(stages, resolve, options);
  if (!options.sliced) return stream(withoutPauses(input));
  const names = stages.map(stageName);
  if (names.every((name) => PER_DOCUMENT.has(name))) return streamBetweenPauses(stream, input);
  if (names.every((name) => PER_DOCUMENT.has(name) || HOLDING.has(name))) return streamGathered(stream, input);
  return stream(withoutPauses(input));
}

/** Streams `input` through per-document stages, up to each pause, which it passes on (see {@link runSegment}). */
function* streamBetweenPauses(
  stream: (input: Iterator<Document>) => Iterator<Document>,
  input: Iterator<Paused<Document>>,
): Generator<Paused<Document>> {
  let paused = false;
  let ended = false;
  // mingo asks again after an end: the feeder stays ended until the stream after the pause.
  const feeder: Iterator<Document> = {
    next: () => {
      if (paused || ended) return { done: true, value: undefined };
      const step = input.next();
      if (step.done) ended = true;
      else if (step.value === PAUSE) paused = true;
      else return step as IteratorYieldResult<Document>;
      return { done: true, value: undefined };
    },
  };
  while (!ended) {
    const output = stream(feeder);
    for (let step = output.next(); !step.done; step = output.next()) yield step.value;
    if (!paused) return;
    paused = false;
    yield PAUSE;
  }
}

/** Gathers `input`, passing its pauses on, then streams it through holding stages (see {@link runSegment}). */
function* streamGathered(
  stream: (input: Iterator<Document>) => Iterator<Document>,
  input: Iterator<Paused<Document>>,
): Generator<Paused<Document>> {
  const gathered: Document[] = [];
  for (let step = input.next(); !step.done; step = input.next()) {
    if (step.value === PAUSE) yield PAUSE;
    else gathered.push(step.value);
  }
  const output = stream(gathered[Symbol.iterator]());
  for (let step = output.next(); !step.done; step = output.next()) yield step.value;
}

/** Runs one join stage the engine runs itself, its argument checked before any document flows. */
function runJoin(
  stage: Document,
  position: number,
  input: Iterator<Paused<Document>>,
  resolve: CollectionResolver,
  options: PipelineOptions,
): Iterator<Paused<Document>> {
  const work = options.joinWork?.(position);
  return "$lookup" in stage
    ? runLookup(input, parseLookup(stage.$lookup), resolve, options, work)
    : runUnionWith(input, parseUnionWith(stage.$unionWith), resolve, options, work);
}

/** The count of a `$limit` stage the engine runs itself (a positive whole number), else undefined. */
function limitOf(stage: Document): number | undefined {
  if (!("$limit" in stage) || !isBsonNumber(stage.$limit)) return undefined;
  const n = toNumber(stage.$limit);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/**
 * `$limit`, run by the engine: once it has passed `n` documents it asks its input for no more.
 * mingo's `$limit` is a filter, which pulls its input to the end when asked once more (as a
 * cursor does to learn it is exhausted): behind a `$lookup` that was one planned foreign read
 * per remaining input document, behind a `$unionWith` its whole collection. MongoDB pulls
 * lazily (and moves a `$limit` ahead of a `$lookup` that keeps one output per input).
 */
function limited(input: Iterator<Paused<Document>>, n: number): Iterator<Paused<Document>> {
  let left = n;
  return {
    next: () => {
      if (left <= 0) return { done: true, value: undefined };
      const step = input.next();
      if (!step.done && step.value !== PAUSE) left--;
      return step;
    },
  };
}

/** True for the stages the engine runs itself, each a part of the pipeline on its own. */
function engineRuns(stage: Document): boolean {
  return ENGINE_JOINS.has(stageName(stage)) || limitOf(stage) !== undefined;
}

/**
 * Where the part of the pipeline starting at `start` ends: one stage the engine runs (a join,
 * a `$limit`), or mingo's stages up to the next of those or the next join (a `$graphLookup` included).
 */
function partEnd(stages: readonly Document[], start: number): number {
  if (engineRuns(stages[start])) return start + 1;
  let end = start;
  while (end < stages.length && !JOINS.has(stageName(stages[end])) && !engineRuns(stages[end])) end++;
  return end < stages.length && !engineRuns(stages[end]) ? end + 1 : end;
}

/** Runs one part of the pipeline (see {@link partEnd}). */
function runPart(
  stages: Document[],
  input: Iterator<Paused<Document>>,
  resolve: CollectionResolver,
  options: PipelineOptions,
  at: { start: number; end: number },
): Iterator<Paused<Document>> {
  const first = stages[at.start];
  if (ENGINE_JOINS.has(stageName(first))) return runJoin(first, at.start, input, resolve, options);
  const limit = limitOf(first);
  if (limit !== undefined) return limited(input, limit);
  return runSegment(stages.slice(at.start, at.end), input, resolve, options);
}

/**
 * Runs aggregation stages over a lazy input, never writing into stored documents and never
 * copying a collection: `$lookup` and `$unionWith` are the engine's (each foreign read planned,
 * see lookup.ts), and `$limit` (which stops pulling its input), the other stages mingo's. Inputs are cloned only for stages that write into
 * them, and documents joined from another collection (by reference) are cloned after the join
 * only when a later stage writes. `$match` and `$sort` compare strings under the options'
 * collation; `$$name` reads the command's `let` variables in every stage. In a `sliced`
 * pipeline the pauses of its reads pass through the engine's stages, and through mingo's where
 * they can (see runSegment); otherwise its output holds none.
 */
export function runPipeline(
  stages: Document[],
  input: Iterator<Paused<Document>>,
  resolve: CollectionResolver,
  options: PipelineOptions = {},
): Iterator<Paused<Document>> {
  let output = input;
  let start = 0;
  while (start < stages.length) {
    const end = partEnd(stages, start);
    output = runPart(stages, output, resolve, options, { start, end });
    const joined = JOINS.has(stageName(stages[end - 1]));
    if (joined && end < stages.length && stages.slice(end).some(writesInput)) output = clones(output);
    start = end;
  }
  return output;
}
