import type { Document } from "mongodb";
import { type ApiError, apiError, notFound } from "../errors.ts";
import { etagOf, ifMatch } from "../http/etag.ts";
import { toRecord } from "../model/serialize.ts";
import type { StoredDocument } from "../store/records.ts";
import type { Route } from "./route.ts";
import { serializeRecord } from "./serialize-output.ts";

/** The 412 for a write whose If-Match no longer describes the stored record. */
export function preconditionFailed(): ApiError {
  return apiError("record.changed", undefined, 412);
}

/**
 * The ETag a plain SHOW (and the last write's response) gives the stored record: of its
 * serialized form when a serializer applies, run with this request as a GET with the same
 * headers would run it. Without one the record is compared as the framework builds it.
 */
async function currentEtag(request: Request, route: Route, current: StoredDocument): Promise<string> {
  const record = await serializeRecord(request, route.app, route.model, toRecord(route.model, current), []);
  return etagOf(JSON.stringify(record));
}

/**
 * Checks If-Match against the record as SHOW would send it, and returns the guard the write
 * must use. With If-Match the guard pins the record's revision, so of many concurrent writers
 * that all read the same version, exactly one succeeds and the rest get 412.
 */
export async function writeGuard(
  request: Request,
  route: Route,
  current: StoredDocument,
  scope: Document,
): Promise<Document> {
  const header = request.headers.get("if-match");
  const guard: Document = { ...scope, _id: current._id };
  if (header === null) return guard;
  if (!ifMatch(header, await currentEtag(request, route, current))) throw preconditionFailed();
  guard._rev = current._rev;
  return guard;
}

/** After a guarded write matched nothing: the record is gone (404) or changed meanwhile (412). */
export async function missedWrite(route: Route, id: number, guard: Document): Promise<never> {
  if ("_rev" in guard && (await route.store.findById(id))) throw preconditionFailed();
  throw notFound(route.model.name);
}
