import type { Model } from "../model/define.ts";
import type { ApiRecord } from "../model/serialize.ts";
import type { WithNode } from "../query/with.ts";
import type { AppState } from "./route.ts";

/** One response's serialization: a record shared by several parents (a belongsTo owner) is serialized once. */
interface Run {
  request: Request;
  app: AppState;
  done: Map<object, Promise<ApiRecord>>;
}

function isRecord(value: unknown): value is ApiRecord {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function anyNodeSerialized(nodes: readonly WithNode[]): boolean {
  return nodes.some((node) => node.model.serialize !== undefined || anyNodeSerialized(node.children));
}

/**
 * Whether a response of `model` with these relations has a serializer to run: the app's, the
 * model's, or that of a model loaded through `with`. Responses without one skip the walk.
 */
export function hasSerializer(app: AppState, model: Model, nodes: readonly WithNode[]): boolean {
  return app.serialize !== undefined || model.serialize !== undefined || anyNodeSerialized(nodes);
}

function serializeOne(run: Run, model: Model, record: ApiRecord, nodes: readonly WithNode[]): Promise<ApiRecord> {
  let pending = run.done.get(record);
  if (pending === undefined) {
    pending = serializeTree(run, model, record, nodes);
    run.done.set(record, pending);
  }
  return pending;
}

/** Children first, so a parent's serializer sees its relations already in their final shape. */
async function serializeTree(
  run: Run,
  model: Model,
  record: ApiRecord,
  nodes: readonly WithNode[],
): Promise<ApiRecord> {
  for (const node of nodes) {
    const name = node.relation.name;
    const value = record[name];
    if (Array.isArray(value)) {
      record[name] = await Promise.all(
        value.map((child) => (isRecord(child) ? serializeOne(run, node.model, child, node.children) : child)),
      );
    } else if (isRecord(value)) {
      record[name] = await serializeOne(run, node.model, value, node.children);
    }
  }
  const ctx = { request: run.request, model };
  let out = record;
  if (model.serialize) out = (await model.serialize(out, ctx)) ?? out;
  if (run.app.serialize) out = (await run.app.serialize(out, ctx)) ?? out;
  return out;
}

/**
 * Runs the serializers over the records of a response, in order: for each record, those of its
 * `with` relations (each with its own model's serializer), then the model's, then the app's.
 * A serializer returns the record to send or changes it in place. Values that are not records
 * (an after-hook may have put anything there) are passed through.
 */
export async function serializeRecords(
  request: Request,
  app: AppState,
  model: Model,
  records: readonly unknown[],
  nodes: readonly WithNode[],
): Promise<unknown[]> {
  const run: Run = { request, app, done: new Map() };
  return await Promise.all(
    records.map((record) => (isRecord(record) ? serializeOne(run, model, record, nodes) : record)),
  );
}

/** {@link serializeRecords} for a single record (SHOW, INSERT, UPDATE, PATCH); anything else is returned as it is. */
export async function serializeRecord(
  request: Request,
  app: AppState,
  model: Model,
  record: unknown,
  nodes: readonly WithNode[],
): Promise<unknown> {
  if (!isRecord(record) || !hasSerializer(app, model, nodes)) return record;
  return (await serializeRecords(request, app, model, [record], nodes))[0];
}
