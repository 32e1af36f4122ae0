import type { Document } from "bson";
import type { UnionWithSpec } from "./join-specs.ts";
import type { CollectionResolver, JoinWork, PipelineOptions } from "./joins.ts";
import type { Paused } from "./interrupts.ts";

/**
 * Runs a checked `$unionWith` over a lazy input: the input's documents, then those of the
 * other collection or view through the stage's pipeline, read (as MongoDB reads them) only
 * once the input is exhausted, its leading stages as an indexed read through the planner.
 * mingo's `$unionWith` took the whole collection first. The documents read are the stored
 * ones, which the caller clones before a later stage writes. The pauses of either read pass on.
 */
export function runUnionWith(
  input: Iterator<Paused<Document>>,
  spec: UnionWithSpec,
  resolve: CollectionResolver,
  options: PipelineOptions,
  work?: JoinWork,
): Iterator<Paused<Document>> {
  let inputDone = false;
  let other: Iterator<Paused<Document>> | undefined;
  return {
    next: () => {
      if (!inputDone) {
        const step = input.next();
        if (!step.done) return step;
        inputDone = true;
      }
      const nested = work?.nested();
      other ??= resolve.read(spec.coll, spec.pipeline, {
        collation: options.collation,
        variables: options.variables,
        joinWork: nested && (() => nested),
        sliced: options.sliced,
      }, work);
      return other.next();
    },
  };
}
