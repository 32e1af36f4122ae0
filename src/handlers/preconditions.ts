import type { Document } from "bson";
import { apiError, notFound } from "../errors.ts";
import { preconditionFailed } from "../http/responses.ts";
import { etagOf, ifMatch, noneMatchRecord } from "../http/etag.ts";
import { toRecord } from "../model/serialize.ts";
import type { StoredDocument } from "../store/records.ts";
import { allOf, type Route } from "./route.ts";
import type { Model } from "../model/define.ts";
import { serializeRecord } from "./serialize-output.ts";

/**
 * The record's own ETag: that of the body a plain SHOW without an after-hook sends for it
 * (serialized when a serializer applies, run with this request as a GET with the same headers
 * would run it). A response an after-hook reshaped carries it as its first part (hookedEtag),
 * so If-Match compares the version and never needs the hook run again. With `auth`, `view` is
 * the model as the principal reads it: the tag of what SHOW sends that principal.
 */
export async function recordEtag(
  request: Request,
  route: Route,
  current: StoredDocument,
  view: Model = route.model,
): Promise<string> {
  const record = await serializeRecord(request, route.app, route.model, toRecord(view, current), []);
  return etagOf(JSON.stringify(record));
}

/**
 * Checks If-Match, then If-None-Match (RFC 9110 13.2.2's order), against the record as SHOW
 * would send it, and returns the guard the write must use. With either header the guard pins
 * the record's revision, so of many concurrent writers that all read the same version,
 * exactly one succeeds and the rest get 412.
 */
export async function writeGuard(
  request: Request,
  route: Route,
  current: StoredDocument,
  scope: Document,
  view: Model = route.model,
): Promise<Document> {
  const match = request.headers.get("if-match");
  const noneMatch = request.headers.get("if-none-match");
  // allOf ANDs the two when `scope` names `_id` itself (an access rule's), never overwriting it.
  const guard: Document = { ...allOf([scope, { _id: current._id }]) };
  if (match === null && noneMatch === null) return guard;
  const etag = await recordEtag(request, route, current, view);
  if (!ifMatch(match, etag)) throw preconditionFailed();
  // `If-None-Match: *` asks to write only where nothing exists yet; the record does.
  if (noneMatch !== null && !noneMatchRecord(noneMatch, etag)) throw apiError("record.unchanged", undefined, 412);
  guard._rev = current._rev;
  return guard;
}

/** After a guarded write matched nothing: the record is gone (404) or changed meanwhile (412). */
export async function missedWrite(route: Route, id: number, guard: Document): Promise<never> {
  if ("_rev" in guard && (await route.store.findById(id))) throw preconditionFailed();
  throw notFound(route.model.name);
}
