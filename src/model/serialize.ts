import type { Document } from "bson";
import type { Model } from "./define.ts";

/** A record as clients see it: `id` instead of `_id`, dates as ISO strings, no hidden fields. */
export type ApiRecord = Record<string, unknown>;

function outputValue(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (value === undefined) return null;
  return value;
}

const outputOrders = new WeakMap<Model, readonly string[]>();

/** Field order of a full record: id, the model's visible fields, then the timestamps. */
export function outputOrder(model: Model): readonly string[] {
  let order = outputOrders.get(model);
  if (!order) {
    const own = Object.keys(model.fields).filter((f) => !model.hidden.has(f));
    const tail = model.softDelete ? ["created_at", "updated_at", "deleted_at"] : ["created_at", "updated_at"];
    order = ["id", ...own, ...tail];
    outputOrders.set(model, order);
  }
  return order;
}

/**
 * Turns a stored document into an API record. `fields` narrows the output to those
 * (already validated) names; hidden fields are never emitted because only visible names
 * are read from the document.
 */
export function toRecord(model: Model, doc: Document, fields?: readonly string[] | null): ApiRecord {
  const names = fields ?? outputOrder(model);
  const record: ApiRecord = {};
  for (const name of names) {
    record[name] = outputValue(name === "id" ? doc._id : doc[name]);
  }
  return record;
}
