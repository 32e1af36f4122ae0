/** A filter read as a conjunction of field conditions and `$or`s: what the planner bounds index reads with. */
import type { Document } from "bson";
import { isPlainObject } from "../bson.ts";

/**
 * A filter read as a conjunction: its field conditions, from the top level and from top-level
 * `$and` members (each member must hold, so any of them can bound the result), its `$or`s
 * (each must hold; the branches of one can bound a read together), and how many other terms
 * ($nor, $expr...) it has, which an index cannot decide.
 */
export interface Conjunction {
  fields: [string, unknown][];
  ors: Document[][];
  others: number;
}

export function conjunction(filter: Document, into: Conjunction = { fields: [], ors: [], others: 0 }): Conjunction {
  for (const key in filter) {
    const value = filter[key];
    if (key === "$and" && Array.isArray(value) && value.length > 0 && value.every(isPlainObject)) {
      for (const member of value) conjunction(member, into);
    } else if (key === "$or" && Array.isArray(value) && value.length > 0 && value.every(isPlainObject)) {
      into.ors.push(value);
    } else if (key.startsWith("$")) {
      into.others++;
    } else {
      into.fields.push([key, value]);
    }
  }
  return into;
}

/** True when some field condition is on `name`. */
export function names(fields: [string, unknown][], name: string): boolean {
  for (let i = 0; i < fields.length; i++) if (fields[i][0] === name) return true;
  return false;
}

/** Most branches {@link everyCombination} expands several `$or`s to. */
const MAX_COMBINATIONS = 64;

/**
 * Several `$or`s that must all hold, as one: a branch per combination of their branches (a
 * cursor's range ANDed with a client's `$or` on the same index: `{$or: [{g: "a"}, {g: "b"}]}`
 * and the range each bound the other's scans). Undefined beyond {@link MAX_COMBINATIONS}.
 */
export function everyCombination(ors: Document[][]): Document[] | undefined {
  let combos: Document[][] = [[]];
  for (const branches of ors) {
    if (combos.length * branches.length > MAX_COMBINATIONS) return undefined;
    combos = combos.flatMap((combo) => branches.map((branch) => [...combo, branch]));
  }
  return combos.map((combo) => ({ $and: combo }));
}

/** The conditions on `_id` among `fields`. */
export function idConditions(fields: [string, unknown][]): unknown[] {
  const found: unknown[] = [];
  for (const [name, cond] of fields) if (name === "_id") found.push(cond);
  return found;
}
