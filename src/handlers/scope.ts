import type { Document } from "mongodb";
import type { Model } from "../model/define.ts";
import type { RawQuery } from "../http/params.ts";

const LIVE: Document = { deleted_at: null };

/**
 * The filter every read of `model` carries: soft-deleted records are left out unless the
 * request asks for them with `trashed=true`. Relations use it too, so a trashed child never
 * shows up under a live parent.
 */
export function scopeOf(request: { query?: RawQuery }, model: Model): Document {
  if (!model.softDelete || request.query?.trashed === "true") return {};
  return LIVE;
}
