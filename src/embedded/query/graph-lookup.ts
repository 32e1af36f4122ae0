import { type Document, Long } from "bson";
import { evalExpr } from "mingo/core";
import type { Iterator as LazyIterator } from "mingo/lazy";
import * as mingoPipeline from "mingo/operators/pipeline";
import { Query } from "mingo/query";
import type { Options, PipelineOperator } from "mingo/types";
import { resolve } from "mingo/util";
import { isPlainObject, toNumber } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { keyOf } from "../store/values.ts";
import { prepareFilter } from "./filter-checks.ts";
import { positionsByKey } from "./value-matching.ts";
import { checkForInterrupt } from "./interrupts.ts";
import { withValueAt } from "../field-names.ts";
import { graphLookupMemory } from "./memory.ts";

/**
 * `$graphLookup`, following `connectFromField` to `connectToField` by the engine's equality
 * (numbers of every width by value, as `$lookup` matches). mingo's joined through its own
 * `$lookup`, so a `Long` link never reached an int32 `_id`. Each document is found once, at
 * its smallest depth; `depthField` is a `Long`, as in MongoDB.
 */

type Stage = (collection: LazyIterator, expr: Document, options: Options) => LazyIterator;

const mingoGraphLookup = (mingoPipeline as unknown as Record<string, Stage>).$graphLookup;

function refuse(message: string): never {
  throw new CommandError("FailedToParse", message);
}

/** The checked specification; undefined for a form left to mingo (no resolvable `from`). */
function specOf(expr: Document) {
  if (!isPlainObject(expr)) refuse("the $graphLookup specification must be an Object");
  for (const field of ["from", "connectFromField", "connectToField", "as"]) {
    if (typeof expr[field] !== "string") refuse(`$graphLookup requires '${field}' to be a string`);
  }
  if (!("startWith" in expr)) refuse("$graphLookup requires 'startWith' to be present");
  const maxDepth = expr.maxDepth === undefined ? Infinity : toNumber(expr.maxDepth);
  if (!(maxDepth >= 0) || (maxDepth !== Infinity && !Number.isInteger(maxDepth))) {
    refuse("$graphLookup's 'maxDepth' must be a non-negative integer");
  }
  if (expr.depthField !== undefined && typeof expr.depthField !== "string") {
    refuse("$graphLookup's 'depthField' must be a string");
  }
  return {
    from: expr.from as string,
    fromField: expr.connectFromField as string,
    toField: expr.connectToField as string,
    as: expr.as as string,
    maxDepth,
    depthField: expr.depthField as string | undefined,
    restrict: isPlainObject(expr.restrictSearchWithMatch) ? expr.restrictSearchWithMatch : undefined,
  };
}

/** The values to look for next: a value, or each element of an array; nothing for missing. */
function linksOf(value: unknown): unknown[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

function $graphLookup(collection: LazyIterator, expr: Document, options: Options): LazyIterator {
  const spec = specOf(expr);
  const resolver = (options as { collectionResolver?: (name: string) => Document[] }).collectionResolver;
  const joined = resolver ? resolver(spec.from) : undefined;
  if (!Array.isArray(joined)) return mingoGraphLookup(collection, expr, options);
  const byKey = positionsByKey(joined, spec.toField);
  const restrict = spec.restrict ? new Query(prepareFilter(spec.restrict), options) : undefined;
  return collection.map((doc) => {
    const depths = new Map<number, number>();
    // What it visits and has yet to visit, counted as MongoDB counts them (40099 past the limit).
    const memory = graphLookupMemory();
    let frontier = linksOf(evalExpr(doc, expr.startWith, options));
    for (let depth = 0; frontier.length > 0 && depth <= spec.maxDepth; depth++) {
      // Each level of the search is an interrupt point: a deep graph is long work of its own.
      checkForInterrupt();
      const next: unknown[] = [];
      for (const value of frontier) {
        for (const position of byKey.get(keyOf(value)) ?? []) {
          if (depths.has(position) || (restrict && !restrict.test(joined[position]))) continue;
          depths.set(position, depth);
          memory.addValue(joined[position]);
          for (const link of linksOf(resolve(joined[position], spec.fromField))) {
            memory.addValue(link);
            next.push(link);
          }
        }
      }
      frontier = next;
    }
    // `as` and `depthField` are field paths, as in MongoDB (setNestedField): "a.b" is b inside a.
    const found = [...depths].map(([position, depth]) =>
      spec.depthField
        ? withValueAt(joined[position], spec.depthField.split("."), Long.fromNumber(depth))
        : joined[position]
    );
    return withValueAt(doc as Document, spec.as.split("."), found);
  });
}

/** The stage, to register in mingo's context over its own. */
export const graphLookupStages: Record<string, PipelineOperator> = {
  $graphLookup: $graphLookup as unknown as PipelineOperator,
};
