import { notFound } from "../errors.ts";
import type { AncestorCheck } from "../plan/read.ts";
import type { RecordStore } from "./records.ts";

/**
 * Looks every ancestor of a nested route up at once, each by id within its filter (ids only);
 * the outermost one missing is the 404, on its model.
 */
export async function checkAncestors(
  checks: readonly AncestorCheck[],
  storeOf: (model: string) => RecordStore,
): Promise<void> {
  if (checks.length === 0) return;
  const found = await Promise.all(
    checks.map((check) => storeOf(check.model).findById(check.id, check.filter, { _id: 1 })),
  );
  const missing = found.findIndex((doc) => !doc);
  if (missing !== -1) throw notFound(checks[missing].model);
}
