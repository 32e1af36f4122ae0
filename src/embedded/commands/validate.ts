import type { Document } from "bson";
import { trueValue } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { checkCollection, type CollectionCheck } from "../store/collection-check.ts";
import type { Collection } from "../store/collection.ts";
import { collectionName, namespace } from "./args.ts";
import type { CommandContext, Handler } from "./context.ts";
import { compliance } from "./validation.ts";

/**
 * What MongoDB 7.0 says of documents that break the collection's validator: an error that makes
 * the collection invalid under validationAction "error", a warning under "warn".
 */
const NON_COMPLIANT = "Detected one or more documents not compliant with the collection's schema.";

/** Builds each inconsistent secondary index again from the documents, in place (validate's `repair`). */
function repairIndexes(coll: Collection, check: CollectionCheck): boolean {
  let repaired = false;
  for (const index of coll.orderedIndexes()) {
    if (!check.invalidIndexes.has(index.spec.name)) continue;
    index.build(coll.docs.numbers());
    repaired = true;
  }
  return repaired;
}

/**
 * validate: checks that a collection's indexes agree with its documents (every entry in order
 * and produced by its document, every document's keys present) and counts the documents that
 * break its validator. `repair: true` builds inconsistent indexes again; what was found is
 * then reported as warnings, and the result as checked afterwards.
 */
function validate(ctx: CommandContext): Document {
  const name = collectionName(ctx, "validate");
  const ns = namespace(ctx.db, name);
  const coll = ctx.engine.catalog.get(ctx.db, name);
  if (coll?.options.viewOn !== undefined) throw new CommandError("CommandNotSupportedOnView", "Cannot validate a view");
  if (coll === undefined) throw new CommandError("NamespaceNotFound", `Collection '${ns}' does not exist to validate.`);
  const found = checkCollection(coll);
  const repaired = trueValue(ctx.body.repair) && repairIndexes(coll, found);
  const check = repaired ? checkCollection(coll) : found;
  const complies = compliance(coll);
  let nonCompliant = 0;
  for (const doc of coll.docs.iterate()) if (!complies(doc)) nonCompliant++;
  const warnings = repaired ? found.errors.map((error) => `Repaired: ${error}`) : [];
  const errors = [...check.errors];
  if (nonCompliant > 0) (coll.options.validationAction === "warn" ? warnings : errors).push(NON_COMPLIANT);
  return {
    ns,
    nInvalidDocuments: 0,
    nNonCompliantDocuments: nonCompliant,
    nrecords: check.records,
    nIndexes: check.keysPerIndex.size,
    keysPerIndex: Object.fromEntries(check.keysPerIndex),
    indexDetails: Object.fromEntries(
      [...check.keysPerIndex.keys()].map((index) => [index, { valid: !check.invalidIndexes.has(index) }]),
    ),
    valid: errors.length === 0,
    repaired,
    warnings,
    errors,
    extraIndexEntries: check.extraIndexEntries,
    missingIndexEntries: check.missingIndexEntries,
    corruptRecords: [],
    ok: 1,
  };
}

/** Checks of a collection's consistency. */
export const validateCommands: Record<string, Handler> = { validate };
