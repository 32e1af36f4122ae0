import { type Collation, parseCollation } from "../store/collation.ts";
import type { Collection } from "../store/collection.ts";
import { type ResolvedView, viewCollation } from "./views.ts";

/**
 * The collation an operation runs under: its own `collation` field when it has one (checked,
 * so a bad one is refused even when the collection does not exist), else the collection's
 * default, else none (binary order).
 */
export function operationCollation(raw: unknown, coll: Collection | undefined): Collation | undefined {
  if (raw !== undefined) return parseCollation(raw);
  return coll?.collation;
}

/**
 * The collation of a read of `coll`: a view's own (asking for another is refused), else as
 * {@link operationCollation}.
 */
export function readCollation(
  raw: unknown,
  coll: Collection | undefined,
  view: ResolvedView | undefined,
): Collation | undefined {
  return view ? viewCollation(view, raw) : operationCollation(raw, coll);
}
