import type { Document } from "mongodb";
import { apiError, type ApiError, notFound } from "../errors.ts";
import { etagOf, ifMatch } from "../http/etag.ts";
import { toRecord } from "../model/serialize.ts";
import type { StoredDocument } from "../store/records.ts";
import type { Route } from "./route.ts";

/** The 412 for a write whose If-Match no longer describes the stored record. */
export function preconditionFailed(): ApiError {
  return apiError("record.changed", undefined, 412);
}

/**
 * Checks If-Match against the record as SHOW would send it, and returns the guard the write
 * must use. With If-Match the guard pins the record's revision, so of many concurrent writers
 * that all read the same version, exactly one succeeds and the rest get 412.
 */
export function writeGuard(request: Request, route: Route, current: StoredDocument, scope: Document): Document {
  const header = request.headers.get("if-match");
  const guard: Document = { ...scope, _id: current._id };
  if (header === null) return guard;
  if (!ifMatch(header, etagOf(JSON.stringify(toRecord(route.model, current))))) throw preconditionFailed();
  guard._rev = current._rev;
  return guard;
}

/** After a guarded write matched nothing: the record is gone (404) or changed meanwhile (412). */
export async function missedWrite(route: Route, id: number, guard: Document): Promise<never> {
  if ("_rev" in guard && (await route.store.findById(id))) throw preconditionFailed();
  throw notFound(route.model.name);
}
