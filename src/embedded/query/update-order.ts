import type { Document } from "bson";
import { isPlainObject } from "../bson.ts";
import { compareStrings } from "../store/strings.ts";

/**
 * The field order of an operator update's result, as MongoDB (5.0 and later) gives it. The server
 * parses every path of an update, whichever operator writes it, into one tree, and applies the
 * tree's children in the order of their names: lexicographic, numeric names in numeric order. A
 * field it creates is appended where it is applied, so created fields follow the fields that were
 * there (which keep their places) in name order, at every depth. mingo's updater appended them
 * in the order the update listed them, operator by operator.
 */

/** An update's paths, one level per node; an empty node is a path's end (its value is kept as written). */
type PathTree = Map<string, PathTree>;

const DIGITS = /^[0-9]+$/;

/** MongoDB's order of field names within an update: numeric names by value, others by bytes. */
export function compareFieldNames(a: string, b: string): number {
  if (DIGITS.test(a) && DIGITS.test(b)) {
    const x = a.replace(/^0+(?=.)/, ""), y = b.replace(/^0+(?=.)/, "");
    if (x.length !== y.length) return x.length - y.length;
    if (x !== y) return x < y ? -1 : 1;
  }
  return compareStrings(a, b);
}

/** The tree of dotted paths. */
function pathTree(paths: readonly string[]): PathTree {
  const root: PathTree = new Map();
  for (const path of paths) {
    let node = root;
    for (const part of path.split(".")) {
      let child = node.get(part);
      if (child === undefined) node.set(part, child = new Map());
      node = child;
    }
  }
  return root;
}

/**
 * `next` (the update's result from `previous`) with the fields the update created moved into
 * MongoDB's order; `paths` are the paths the update wrote. The same object when nothing moves.
 */
export function inUpdateOrder(previous: Document, next: Document, paths: readonly string[]): Document {
  return reordered(previous, next, pathTree(paths)) as Document;
}

function reordered(previous: unknown, next: unknown, tree: PathTree): unknown {
  if (tree.size === 0) return next;
  if (Array.isArray(next)) return reorderedElements(previous, next, tree);
  if (!isPlainObject(next)) return next;
  const before = isPlainObject(previous) ? previous : {};
  const created = Object.keys(next).filter((key) => !Object.hasOwn(before, key));
  let out: Document | undefined;
  if (created.length > 0 || !keptInOrder(before, next)) {
    out = {};
    for (const key in before) if (Object.hasOwn(next, key)) out[key] = next[key];
    // Fields no path names (none expected) stay last, as they came.
    const named = created.filter((key) => tree.has(key)).sort(compareFieldNames);
    for (const key of [...named, ...created.filter((key) => !tree.has(key))]) out[key] = next[key];
  }
  for (const [key, subtree] of tree) {
    if (!Object.hasOwn(next, key)) continue;
    const value = reordered(before[key], next[key], subtree);
    if (value === next[key]) continue;
    out ??= { ...next };
    out[key] = value;
  }
  return out ?? next;
}

/** Whether the fields of `next` that were in `before` come in `before`'s order. */
function keptInOrder(before: Document, next: Document): boolean {
  const kept = Object.keys(before).filter((key) => Object.hasOwn(next, key));
  let i = 0;
  for (const key in next) if (Object.hasOwn(before, key) && key !== kept[i++]) return false;
  return true;
}

/** Array elements under numeric or positional (`$`, `$[]`, `$[id]`) parts of the paths. */
function reorderedElements(previous: unknown, next: unknown[], tree: PathTree): unknown[] {
  const positional = [...tree].find(([key]) => key.startsWith("$"))?.[1];
  let out: unknown[] | undefined;
  next.forEach((element, i) => {
    const subtree = tree.get(String(i)) ?? positional;
    if (subtree === undefined) return;
    const value = reordered(Array.isArray(previous) ? previous[i] : undefined, element, subtree);
    if (value === element) return;
    out ??= [...next];
    out[i] = value;
  });
  return out ?? next;
}
