import type { Document } from "bson";
import { isPlainObject } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { isEmptyFilter } from "./filter.ts";
import { projectingQuery } from "./mingo.ts";

/** Applies a projection to a batch of documents; `null` when there is nothing to project. */
export type Projector = ((docs: Document[]) => Document[]) | null;

/**
 * Compiles a find projection with mingo. Input documents are cloned first because they are
 * the stored ones (mingo's projection may write into what it is given); only the documents of
 * a batch are ever projected, so the cost is bounded by the batch.
 */
export function compileProjection(projection: unknown, filter?: unknown): Projector {
  if (isEmptyFilter(projection)) return null;
  if (!isPlainObject(projection)) throw new CommandError("TypeMismatch", "projection must be an object");
  // The filter only matters to positional projections ("a.$"); the batch already matches it.
  const positional = Object.keys(projection).some((k) => k.endsWith(".$"));
  const condition = positional && isPlainObject(filter) ? filter : {};
  const query = projectingQuery(condition);
  return (docs) => query.find<Document>(docs, projection).all();
}
