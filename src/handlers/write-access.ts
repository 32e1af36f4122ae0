import type { Document } from "bson";
import { Query } from "mingo";
import { apiError, CatalogValidationError, type FieldMessages } from "../errors.ts";
import { msg } from "../i18n/message.ts";
import type { Operation } from "../model/access.ts";
import type { Model } from "../model/define.ts";
import type { Grant, RequestAccess } from "../query/access.ts";
import type { Route } from "./route.ts";

/**
 * What a write may do under the request's access rules: the records it may reach (ANDed into
 * its guard, so a record outside them is a 404 in the same atomic write that checks If-Match),
 * the body it may send (fields the rule does not let it write are a 400 naming them), the
 * values forced on the record, and the condition the record must meet (a 403). Without `auth`
 * every write is open, as it was.
 */
export interface WriteAccess {
  /** The records the write may reach: `{}` when unrestricted. */
  readonly filter: Document;
  /** The model as the principal reads it: the write's response and its ETag show only that. */
  readonly view: Model;
  /** Refuses fields the principal may not write, then sets the forced values (call before and after the before-hook). */
  prepare(body: Record<string, unknown>): void;
  /** Refuses a record outside what the principal may write (its `check`, and a nested route's parent kept). */
  verify(record: Document, parent: Document): void;
}

function open(model: Model): WriteAccess {
  return { filter: {}, view: model, prepare() {}, verify() {} };
}

/** Fields of `body` the grant does not let the principal write, each with its message. */
function refusedFields(body: Record<string, unknown>, grant: Grant, model: Model): FieldMessages {
  const errors: FieldMessages = Object.create(null);
  if (grant.writable === null) return errors;
  for (const field of Object.keys(body)) {
    if (Object.hasOwn(model.fields, field) && !grant.writable.has(field) && !(field in grant.set)) {
      errors[field] = [msg("auth.notWritable", { field })];
    }
  }
  return errors;
}

/** What the principal may write through `operation` on the route's model (see {@link WriteAccess}). */
export function writeAccess(route: Route, access: RequestAccess | undefined, operation: Operation): WriteAccess {
  const { model } = route;
  if (access === undefined) return open(model);
  const grant = access.require(model, operation);
  const view = access.grant(model, "show")?.view ?? grant.view;
  const refuse = () => apiError("auth.checkFailed", { model: model.name }, 403);
  return {
    filter: grant.filter,
    view,
    prepare(body) {
      if (grant.void) throw refuse();
      const refused = refusedFields(body, grant, model);
      if (Object.keys(refused).length > 0) throw new CatalogValidationError(refused);
      Object.assign(body, grant.set);
    },
    verify(record, parent) {
      for (const [field, value] of Object.entries(parent)) if (record[field] !== value) throw refuse();
      if (grant.check !== null && !new Query(grant.check).test(record)) throw refuse();
    },
  };
}
