import type { Document } from "bson";
import { isPlainObject, toNumber } from "../bson.ts";
import type { ReadSpec } from "./plan.ts";

// The leading stages of a pipeline that the engine answers itself, as an indexed read or a
// count, before mingo runs the rest. Shared by aggregate, explain and views.

/** `[$match?, $skip?, $limit?, {$group: {_id: const, n: {$sum: 1}}}]`: the driver's countDocuments. */
export function countShape(pipeline: Document[]): { spec: ReadSpec; group: Document } | undefined {
  const spec: ReadSpec = {};
  let i = 0;
  if (pipeline[i]?.$match !== undefined) spec.filter = pipeline[i++].$match;
  if (pipeline[i]?.$skip !== undefined) spec.skip = toNumber(pipeline[i++].$skip);
  if (pipeline[i]?.$limit !== undefined) spec.limit = toNumber(pipeline[i++].$limit);
  if (i !== pipeline.length - 1 || !isPlainObject(pipeline[i].$group)) return undefined;
  const group = pipeline[i].$group as Document;
  const fields = Object.keys(group);
  const constantId = typeof group._id !== "string" && !isPlainObject(group._id);
  // A name $group refuses (dotted, or an operator's) goes the long way, to be refused there.
  const plainName = fields.length === 2 && !fields[1].includes(".") && !fields[1].startsWith("$");
  const counter = plainName && fields[0] === "_id" ? group[fields[1]] : undefined;
  if (!constantId || !isPlainObject(counter) || Object.keys(counter).length !== 1) return undefined;
  if (toNumber((counter as Document).$sum) !== 1) return undefined;
  return { spec, group };
}

/** Folds a leading `$match`, `$sort`, `$skip`, `$limit` into an indexed, streaming read. */
export function leadingRead(pipeline: Document[]): { spec: ReadSpec; rest: Document[] } {
  const spec: ReadSpec = {};
  let i = 0;
  if (pipeline[i]?.$match !== undefined) spec.filter = pipeline[i++].$match;
  if (pipeline[i]?.$sort !== undefined) spec.sort = pipeline[i++].$sort;
  if (pipeline[i]?.$skip !== undefined) spec.skip = toNumber(pipeline[i++].$skip);
  if (pipeline[i]?.$limit !== undefined) spec.limit = toNumber(pipeline[i++].$limit);
  return { spec, rest: pipeline.slice(i) };
}
