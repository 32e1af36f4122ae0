import type { Document } from "bson";
import type { Model } from "../model/define.ts";

/** The filter for records that are not soft-deleted. */
export const LIVE: Readonly<Document> = Object.freeze({ deleted_at: null });

/**
 * The filter every read of `model` carries: soft-deleted records are left out unless the
 * request asked for them with `trashed=true`. Relations use it too, so a trashed child never
 * shows up under a live parent.
 */
export function readScope(model: Model, trashed: boolean): Document {
  return model.softDelete && !trashed ? LIVE : {};
}

/**
 * The filter every write of `model` carries: only live records can be changed or soft-deleted,
 * whatever `trashed` says, so a second DELETE cannot overwrite the first deletion time.
 * (`DELETE …/force` is the one write that reaches trashed records.)
 */
export function writeScope(model: Model): Document {
  return model.softDelete ? LIVE : {};
}
