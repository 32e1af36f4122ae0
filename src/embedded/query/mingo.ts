import type { Document } from "bson";
import { Query } from "mingo";
import { Context, ProcessingMode } from "mingo/core";
import { Query as BaseQuery } from "mingo/query";
import type { Options, QueryOperator } from "mingo/types";
import { jsonSchemaPredicate } from "./json-schema.ts";

/**
 * Reusable mingo options. mingo's `new Query(filter)` copies its whole operator registry on
 * every call (tens of microseconds: more than running the query on a small page). Handed the
 * options object mingo builds internally, a query reuses the registry instead. That object is
 * captured once, through a custom query operator (the public way to receive it); should a
 * future mingo not pass it, plain options are used and only speed is lost.
 */
function captureOptions(processingMode: ProcessingMode): Partial<Options> {
  let captured: Partial<Options> | undefined;
  const $captureOptions = (_selector: string, _value: unknown, options: Options) => {
    captured = options;
    return () => true;
  };
  const context = Context.init({ query: { $captureOptions: $captureOptions as unknown as QueryOperator } });
  new Query({ probe: { $captureOptions: 1 } } as Document, { processingMode, context, jsonSchemaValidator: jsonSchemaPredicate });
  return captured ?? { processingMode, jsonSchemaValidator: jsonSchemaPredicate };
}

/** Options for filters: documents are only read. */
const FILTER_OPTIONS = captureOptions(ProcessingMode.CLONE_OFF);
/** Options for projections: inputs are cloned first, since they are the stored documents. */
const PROJECT_OPTIONS = captureOptions(ProcessingMode.CLONE_INPUT);

/** Compiles a filter with the shared options. */
export function mingoQuery(filter: Document): BaseQuery<Document> {
  return new BaseQuery<Document>(filter, FILTER_OPTIONS);
}

/** A query whose `find(docs, projection)` projects clones of `docs`. */
export function projectingQuery(condition: Document): BaseQuery<Document> {
  return new BaseQuery<Document>(condition, PROJECT_OPTIONS);
}
