import type { Document } from "bson";
import { Aggregator } from "mingo/aggregator";
import { ProcessingMode } from "mingo/core";
import { type Iterator as LazyIterator, Lazy } from "mingo/lazy";
import type { Options, PipelineOperator } from "mingo/types";
import { setField } from "../field-names.ts";
import { exceeded, facetMemory, memoryLimits, MemoryTracker } from "./memory.ts";

/**
 * `$facet`, as mingo runs it (each pipeline over the whole input, given copies), with what it
 * holds counted (memory.ts): its output document past internalQueryFacetMaxOutputDocSizeBytes
 * is refused as MongoDB refuses it (4031700), each result counted as it comes. The engine also
 * holds the input until every pipeline has run (MongoDB streams it to the pipelines in
 * batches), so the input counts against the same 100 MiB, refused with ExceededMemoryLimit (146).
 */
function $facet(collection: LazyIterator, expr: Document, options: Options): LazyIterator {
  // Stages are handed mingo's ComputeOptions; the pipelines get its plain options, copying their input.
  const plain = (options as unknown as { options?: Options }).options ?? options;
  const facetOptions = plain.processingMode & ProcessingMode.CLONE_INPUT
    ? plain
    : { ...plain, processingMode: ProcessingMode.CLONE_INPUT };
  const limit = memoryLimits.facet;
  const input = new MemoryTracker(() => limit, (used) =>
    exceeded(
      `$facet would hold ${used} bytes of input documents, and the embedded engine cannot spill to disk. ` +
        `Memory limit: ${limit} bytes`,
    ));
  const held = collection.map((doc) => {
    input.addValue(doc);
    return doc;
  });
  return held.transform((items) => {
    const output = facetMemory();
    const out: Document = {};
    for (const name of Object.keys(expr)) {
      const results: Document[] = [];
      const stream = new Aggregator(expr[name], facetOptions).stream(items) as Iterator<Document>;
      for (let step = stream.next(); !step.done; step = stream.next()) {
        output.addValue(step.value);
        results.push(step.value);
      }
      setField(out, name, results);
    }
    return Lazy([out]);
  });
}

/** The stage, to register in mingo's context over its own. */
export const facetStages: Record<string, PipelineOperator> = {
  $facet: $facet as unknown as PipelineOperator,
};
