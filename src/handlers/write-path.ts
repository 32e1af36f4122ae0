import type { Document } from "bson";
import { QueryParams } from "../http/params.ts";
import { ancestorChecks, childFilter, type ParentIds } from "../query/nesting.ts";
import { writeScope } from "../query/scope.ts";
import type { Route } from "./route.ts";
import type { Model } from "../model/define.ts";
import { allOf } from "../plan/conditions.ts";
import type { RequestAccess } from "../query/access.ts";

/** Refuses query parameters on a write: the generated writes take none (a model's hooks may take its `params`). */
export function refuseWriteParameters(request: Request, route: Route): void {
  if (request.url.includes("?")) new QueryParams(request.url).refuseUnknown([], route.model.params);
}

/**
 * The parent filter for a write on a nested route (every ancestor must be live and under its
 * own parent: a 404 otherwise, the outermost first), or `{}` on a top-level route. Writes also
 * set the child's foreign key from it, so the path decides it.
 */
export async function liveParentFilter(
  route: Route,
  ids: ParentIds | undefined,
  access?: RequestAccess,
): Promise<Document> {
  const link = route.parent;
  if (!link || !ids) return {};
  // With auth, an ancestor the principal may not see (its SHOW rule) is a 404 here as in reads.
  const scopeOf = (model: Model) =>
    access ? allOf([writeScope(model), access.grant(model, "show")?.filter ?? UNSEEN]) : writeScope(model);
  await route.app.data.checkAncestors(ancestorChecks(link, ids, scopeOf));
  return childFilter(link, ids);
}

/** Matches nothing: an ancestor the principal may not see. */
const UNSEEN: Document = Object.freeze({ _id: { $in: [] } });

/** The stored value of a read-only field as a response shows it: `id`, the timestamps as ISO text, `deleted_at` or null. */
function shownValue(stored: Document, field: string): unknown {
  const value = field === "id" ? stored._id : stored[field];
  if (value instanceof Date) return value.toISOString();
  return value ?? null;
}

const ECHOED_FIELDS = ["id", "created_at", "updated_at", "deleted_at"];

/**
 * Drops the read-only fields a PUT or PATCH sends back exactly as GET showed them, so sending
 * back what GET returned works; one with another value stays, for validation's 400 naming it
 * among every other problem of the body.
 */
export function dropEchoedFields(body: Record<string, unknown>, stored: Document): void {
  for (const field of ECHOED_FIELDS) {
    if (Object.hasOwn(body, field) && body[field] === shownValue(stored, field)) delete body[field];
  }
}
