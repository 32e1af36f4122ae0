import { bsonTag, isPlainObject } from "../bson.ts";
import { compareValues, typeRank } from "../store/values.ts";
import { equalityValue } from "./filter.ts";

/** The start (or, with `end`, the end) of all values of one BSON type rank. */
export class RankEdge {
  /** An edge of type rank `rank`. */
  constructor(
    readonly rank: number,
    readonly end: boolean,
  ) {}
}

/** One end of an interval: a value (in or out of the interval) or the edge of a type. */
export interface Endpoint {
  value: unknown;
  inclusive: boolean;
}

/** Values between two endpoints, in BSON order. */
export interface Interval {
  lo: Endpoint;
  hi: Endpoint;
}

/** What the conditions on one field allow: disjoint intervals in BSON order. */
export interface FieldBounds {
  intervals: Interval[];
  /** The intervals decide the conditions exactly (on a field that is not multikey). */
  exact: boolean;
}

/** Every value. */
export const FULL: Interval = {
  lo: { value: new RankEdge(0, false), inclusive: true },
  hi: { value: new RankEdge(99, true), inclusive: true },
};

/**
 * The bounds of a field without conditions: every value. One frozen instance, shared by every
 * plan (most scan fields of most reads have no condition), so planning allocates none.
 */
export const UNBOUNDED: FieldBounds = Object.freeze({ intervals: Object.freeze([FULL]) as Interval[], exact: false });

/** Compares a value with an endpoint's value (which may be a type edge). */
export function compareToEndpoint(v: unknown, ep: unknown): number {
  if (!(ep instanceof RankEdge)) return compareValues(v, ep);
  const r = typeRank(v);
  return r !== ep.rank ? r - ep.rank : ep.end ? -1 : 1;
}

/** True when `v` lies in the interval. */
export function inInterval(v: unknown, iv: Interval): boolean {
  const lo = compareToEndpoint(v, iv.lo.value);
  if (lo < 0 || (lo === 0 && !iv.lo.inclusive)) return false;
  const hi = compareToEndpoint(v, iv.hi.value);
  return hi < 0 || (hi === 0 && iv.hi.inclusive);
}

/** True when `v` lies in one of the intervals. */
export function inBounds(v: unknown, bounds: readonly Interval[]): boolean {
  return bounds.some((iv) => inInterval(v, iv));
}

function compareEdges(a: unknown, b: unknown): number {
  if (a instanceof RankEdge && b instanceof RankEdge) return a.rank - b.rank || Number(a.end) - Number(b.end);
  if (a instanceof RankEdge) return -compareToEndpoint(b, a);
  return compareToEndpoint(a, b);
}

/** Orders low ends: at an equal value an exclusive low starts later. */
function compareLows(a: Endpoint, b: Endpoint): number {
  return compareEdges(a.value, b.value) || Number(b.inclusive) - Number(a.inclusive);
}

/** Orders high ends: at an equal value an exclusive high ends earlier. */
function compareHighs(a: Endpoint, b: Endpoint): number {
  return compareEdges(a.value, b.value) || Number(a.inclusive) - Number(b.inclusive);
}

function nonEmpty(iv: Interval): boolean {
  const c = compareEdges(iv.lo.value, iv.hi.value);
  return c < 0 || (c === 0 && iv.lo.inclusive && iv.hi.inclusive);
}

/** Sorts intervals and merges overlapping ones. */
function normalise(intervals: Interval[]): Interval[] {
  const sorted = intervals.filter(nonEmpty).sort((a, b) => compareLows(a.lo, b.lo));
  const out: Interval[] = [];
  for (const iv of sorted) {
    const last = out[out.length - 1];
    const touch = last && compareEdges(iv.lo.value, last.hi.value);
    if (last && touch !== undefined && (touch < 0 || (touch === 0 && (iv.lo.inclusive || last.hi.inclusive)))) {
      if (compareHighs(iv.hi, last.hi) > 0) last.hi = iv.hi;
    } else out.push({ ...iv });
  }
  return out;
}

/** The values both interval lists allow. */
export function intersect(a: Interval[], b: Interval[]): Interval[] {
  const out: Interval[] = [];
  for (const x of a) {
    for (const y of b) {
      const lo = compareLows(x.lo, y.lo) >= 0 ? x.lo : y.lo;
      const hi = compareHighs(x.hi, y.hi) <= 0 ? x.hi : y.hi;
      out.push({ lo, hi });
    }
  }
  return normalise(out);
}

const point = (v: unknown): Interval => ({ lo: { value: v, inclusive: true }, hi: { value: v, inclusive: true } });
/** Endpoints are never modified once made: the type edges are made once per rank. */
const typeStarts = new Map<number, Endpoint>();
const typeEnds = new Map<number, Endpoint>();

function typeStart(rank: number): Endpoint {
  let edge = typeStarts.get(rank);
  if (edge === undefined) {
    typeStarts.set(rank, edge = Object.freeze({ value: new RankEdge(rank, false), inclusive: true }));
  }
  return edge;
}

function typeEnd(rank: number): Endpoint {
  let edge = typeEnds.get(rank);
  if (edge === undefined) {
    typeEnds.set(rank, edge = Object.freeze({ value: new RankEdge(rank, true), inclusive: true }));
  }
  return edge;
}

/** Scalars whose equality the index decides exactly (null also matches missing fields and arrays of null). */
function exactScalar(v: unknown): boolean {
  if (typeof v === "number") return !Number.isNaN(v);
  return typeof v === "string" || typeof v === "boolean" || v instanceof Date || bsonTag(v) === "ObjectId";
}

/** Range operands whose type bracket the index knows. */
function rangeOperand(v: unknown): boolean {
  return (typeof v === "number" && !Number.isNaN(v)) || typeof v === "string" || v instanceof Date ||
    bsonTag(v) === "ObjectId";
}

const REGEX_META = new Set([..."\\^$.|?*+()[]{}"]);

/** The strings a prefix-anchored regex can match, as an interval (and whether that is all it says). */
export function regexBounds(source: string, flags: string): { interval: Interval; exact: boolean } | undefined {
  // An alternation (`^a|b`) anchors only its first branch: the index cannot bound it.
  if (!source.startsWith("^") || /[imx]/.test(flags) || source.includes("|")) return undefined;
  let prefix = "";
  let i = 1;
  while (i < source.length && !REGEX_META.has(source[i])) prefix += source[i++];
  const optional = i < source.length && "?*{".includes(source[i]);
  if (optional) prefix = prefix.slice(0, -1);
  const exact = i === source.length && flags === "";
  if (prefix === "") return { interval: { lo: typeStart(4), hi: typeEnd(4) }, exact: false };
  const upper = prefixSuccessor(prefix);
  const hi: Endpoint = upper === undefined ? typeEnd(4) : { value: upper, inclusive: false };
  return { interval: { lo: { value: prefix, inclusive: true }, hi }, exact };
}

/**
 * The least string above every string starting with `prefix`, in binary (code point) order:
 * the prefix with its last code point replaced by the next one (past the surrogate range, and
 * carrying over U+10FFFF); undefined when there is none.
 */
function prefixSuccessor(prefix: string): string | undefined {
  const points = [...prefix].map((c) => c.codePointAt(0)!);
  while (points.length > 0 && points[points.length - 1] === 0x10ffff) points.pop();
  if (points.length === 0) return undefined;
  let next = points.pop()! + 1;
  if (next >= 0xd800 && next <= 0xdfff) next = 0xe000;
  return String.fromCodePoint(...points, next);
}

type Translated = { intervals: Interval[]; exact: boolean } | undefined;

function regexOf(v: unknown): Translated {
  if (v instanceof RegExp) {
    const r = regexBounds(v.source, v.flags);
    return r && { intervals: [r.interval], exact: r.exact };
  }
  if (bsonTag(v) === "BSONRegExp") {
    const b = v as { pattern: string; options: string };
    const r = regexBounds(b.pattern, b.options);
    return r && { intervals: [r.interval], exact: r.exact };
  }
  return undefined;
}

function membersOf(list: unknown[]): Translated {
  const intervals: Interval[] = [];
  let exact = true;
  for (const v of list) {
    if (Array.isArray(v) || isPlainObject(v)) return undefined;
    const regex = regexOf(v);
    if (regex) intervals.push(...regex.intervals);
    else if (v instanceof RegExp || bsonTag(v) === "BSONRegExp") return undefined;
    else intervals.push(point(v === undefined ? null : v));
    exact &&= regex ? regex.exact : exactScalar(v);
  }
  return { intervals: normalise(intervals), exact };
}

function rangeOf(op: string, v: unknown): Translated {
  if (!rangeOperand(v)) return undefined;
  const rank = typeRank(v);
  const at: Endpoint = { value: v, inclusive: op === "$gte" || op === "$lte" };
  const interval = op === "$gt" || op === "$gte" ? { lo: at, hi: typeEnd(rank) } : { lo: typeStart(rank), hi: at };
  return { intervals: [interval], exact: typeof v !== "object" || v instanceof Date };
}

/** Bounds from one operator of a condition object, if the index can use it. */
function operatorBounds(op: string, v: unknown, options: unknown, multikey: boolean): Translated {
  switch (op) {
    case "$eq":
      return v instanceof RegExp || bsonTag(v) === "BSONRegExp" ? undefined : equalityBounds(v);
    case "$in":
      return Array.isArray(v) ? membersOf(v) : undefined;
    case "$gt":
    case "$gte":
    case "$lt":
    case "$lte":
      return rangeOf(op, v);
    case "$ne":
      // An empty array indexes as null yet is not null: on a multikey index `$ne: null` bounds nothing.
      return multikey && (v === null || v === undefined) ? undefined : notEqualBounds(v);
    case "$regex": {
      const source = v instanceof RegExp ? v.source : typeof v === "string" ? v : undefined;
      const flags = (v instanceof RegExp ? v.flags : "") + (typeof options === "string" ? options : "");
      const r = source === undefined ? undefined : regexBounds(source, flags);
      return r && { intervals: [r.interval], exact: r.exact };
    }
  }
  return undefined;
}

/**
 * Everything but one value: the two intervals around it. A missing field indexes as null, and
 * `$ne: null` excludes both, so the index decides it exactly (on a field that is not multikey).
 */
function notEqualBounds(v: unknown): Translated {
  if (Array.isArray(v) || isPlainObject(v) || v instanceof RegExp || bsonTag(v) === "BSONRegExp") return undefined;
  const at = v === undefined ? null : v;
  const intervals = [{ lo: FULL.lo, hi: { value: at, inclusive: false } }, {
    lo: { value: at, inclusive: false },
    hi: FULL.hi,
  }];
  return { intervals, exact: at === null || exactScalar(at) };
}

function equalityBounds(v: unknown): Translated {
  if (Array.isArray(v)) return undefined;
  const regex = regexOf(v);
  if (regex || v instanceof RegExp) return regex;
  // A null entry is a null or missing field (an array of null, or an empty array, makes the
  // index multikey, where nothing is exact), which is just what `{field: null}` matches.
  return { intervals: [point(v === undefined ? null : v)], exact: v === null || exactScalar(v) };
}

/**
 * The interval lists one filter condition on a field allows (several for an operator object,
 * each of which must hold), or undefined when no operator is usable. `exact` when the lists
 * together say all the condition says.
 */
export function conditionBounds(cond: unknown, multikey = false): { lists: Interval[][]; exact: boolean } | undefined {
  const eq = equalityValue(cond);
  if (eq || cond instanceof RegExp) {
    const t = eq ? equalityBounds(eq.value) : regexOf(cond);
    return t && { lists: [t.intervals], exact: t.exact };
  }
  if (!isPlainObject(cond)) return undefined;
  const lists: Interval[][] = [];
  let exact = true;
  for (const [op, v] of Object.entries(cond)) {
    if (op === "$options") continue;
    const t = operatorBounds(op, v, cond.$options, multikey);
    if (t) lists.push(t.intervals);
    exact &&= t?.exact ?? false;
  }
  return lists.length ? { lists, exact } : undefined;
}

/**
 * Combines the interval lists of every condition on one field: all of them must hold, so they
 * intersect, except on a multikey field where each may be met by a different element, so only
 * one list can bound the scan.
 */
export function fieldBounds(conditions: readonly unknown[], multikey: boolean): FieldBounds {
  let intervals: Interval[] | undefined;
  let exact = !multikey;
  for (const cond of conditions) {
    const found = conditionBounds(cond, multikey);
    exact &&= found?.exact ?? false;
    for (const list of found?.lists ?? []) {
      if (intervals === undefined) intervals = list;
      else if (!multikey) intervals = intersect(intervals, list);
    }
  }
  return intervals === undefined ? UNBOUNDED : { intervals, exact };
}

/** The values any of the bounds allow (the bounds of an `$or` across its branches). */
export function unionOf(list: readonly FieldBounds[]): FieldBounds {
  if (list.some(isFull)) return UNBOUNDED;
  return { intervals: normalise(list.flatMap((b) => b.intervals)), exact: false };
}

/** True when the bounds are a single value (an equality). */
export function isPoint(bounds: FieldBounds): boolean {
  return bounds.intervals.length === 1 && isPointInterval(bounds.intervals[0]);
}

/** True when every interval is a single value. */
export function allPoints(bounds: FieldBounds): boolean {
  return bounds.intervals.length > 0 && bounds.intervals.every(isPointInterval);
}

function isPointInterval(iv: Interval): boolean {
  return !(iv.lo.value instanceof RankEdge) && iv.lo.inclusive && iv.hi.inclusive &&
    compareEdges(iv.lo.value, iv.hi.value) === 0;
}

/** True when the bounds allow every value. */
export function isFull(bounds: FieldBounds): boolean {
  return bounds.intervals.length === 1 && bounds.intervals[0] === FULL;
}
