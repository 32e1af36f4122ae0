import { BSON, type Document } from "bson";
import { isPlainObject, SERIALIZE } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { approximateSize } from "../sizes.ts";

/**
 * MongoDB's limit on how deeply documents and arrays may nest in a stored document: its
 * `maxBSONDepth` (200) less the 20 levels it keeps for wrapping a document in replies and
 * the oplog. The manual's "100 levels" is older than that. The top level counts as 1; an
 * empty document or array adds no level (as in MongoDB).
 */
export const MAX_NESTING = 180;

/** Which write produced the document: MongoDB words the errors differently. */
export type WriteKind = "insert" | "update";

/**
 * Throws unless MongoDB would store `doc`: no field name with a NUL byte (BSON cannot encode
 * one, so every later read of the document would fail), at most {@link MAX_NESTING} levels,
 * and, when `maxSize` is given, a BSON size within it. Inserts are sized on the wire as sent;
 * updates, upserts and findAndModify build their document here, so they pass `maxSize`.
 */
export function checkStorable(doc: Document, kind: WriteKind, maxSize?: number): void {
  // An update pipeline can build a document whose values are shared many times over, too large
  // to walk: one that large is refused by its (approximate) size before it is walked.
  const size = maxSize !== undefined && approximateSize(doc, MEASURABLE) > MEASURABLE ? MEASURABLE : undefined;
  if (size === undefined) walk(doc, 1, kind);
  if (maxSize === undefined) return;
  tooLarge(size ?? BSON.calculateObjectSize(doc, SERIALIZE), kind, maxSize);
}

/** Past {@link approximateSize}'s this, a document is not measured exactly (see checkStorable). */
const MEASURABLE = 256 * 1024 * 1024;

function tooLarge(size: number, kind: WriteKind, maxSize: number): void {
  if (size > maxSize) {
    const what = kind === "insert" ? "object to insert too large" : "Resulting document after update is larger than";
    throw new CommandError("BSONObjectTooLarge", `${what} ${maxSize} (${size} bytes)`);
  }
}

function walk(container: Document | unknown[], depth: number, kind: WriteKind): void {
  if (Array.isArray(container)) {
    for (const value of container) visit(value, depth, kind);
    return;
  }
  for (const key in container) {
    if (key.includes("\u0000")) {
      throw new CommandError(
        "BadValue",
        `field name ${JSON.stringify(key)} contains a NUL byte, which BSON cannot store`,
      );
    }
    visit(container[key], depth, kind);
  }
}

function visit(value: unknown, depth: number, kind: WriteKind): void {
  if (value === null || typeof value !== "object") return;
  if (!Array.isArray(value) && !isPlainObject(value)) return; // a BSON value: no level
  if (depth >= MAX_NESTING && !isEmpty(value)) {
    throw new CommandError(
      "Overflow",
      kind === "insert"
        ? `cannot insert document because it exceeds ${MAX_NESTING} levels of nesting`
        : `Document exceeds maximum nesting depth of ${MAX_NESTING}`,
    );
  }
  walk(value, depth + 1, kind);
}

function isEmpty(container: Document | unknown[]): boolean {
  if (Array.isArray(container)) return container.length === 0;
  for (const _ in container) return false;
  return true;
}
