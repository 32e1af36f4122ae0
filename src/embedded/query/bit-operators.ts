import type { Binary } from "bson";
import type { Options, QueryOperator } from "mingo/types";
import { bsonTag, toNumber } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { someAtPath } from "./bson-types.ts";
import { numberKind, wholeNumber } from "./number-arithmetic.ts";

/**
 * The bitwise query operators ($bitsAllSet, $bitsAllClear, $bitsAnySet, $bitsAnyClear). mingo's
 * matched values that are not numbers at all ({a: {$bitsAnyClear: 4}} matched strings, nulls
 * and missing fields) and did not read Longs or BinData. As in MongoDB, these match only
 * whole numbers within the 64-bit range (negative ones in two's complement, their sign bit
 * extended past bit 63) and BinData (bit 0 is the low bit of the first byte); the mask is a
 * non-negative 32-bit number, a list of bit positions, or BinData.
 */

/** The bit positions a mask names. */
function maskPositions(name: string, mask: unknown): number[] {
  if (bsonTag(mask) === "Binary") return setBitsOfBytes((mask as Binary).value());
  if (Array.isArray(mask)) {
    return mask.map((p) => {
      const n = numberKind(p) === undefined ? Number.NaN : toNumber(p);
      if (!Number.isInteger(n) || n < 0) {
        throw new CommandError(
          "BadValue",
          `bit positions of ${name} must be non-negative integers, found ${String(p)}`,
        );
      }
      return n;
    });
  }
  const n = numberKind(mask) === undefined ? Number.NaN : toNumber(mask);
  if (!Number.isInteger(n) || n < 0 || n > 2 ** 31 - 1) {
    throw new CommandError(
      "BadValue",
      `${name} takes a non-negative 32-bit integer, a list of bit positions or BinData, not ${String(mask)}`,
    );
  }
  const positions: number[] = [];
  for (let bit = 0; bit < 31; bit++) if (Math.floor(n / 2 ** bit) % 2 === 1) positions.push(bit);
  return positions;
}

function setBitsOfBytes(bytes: Uint8Array): number[] {
  const positions: number[] = [];
  bytes.forEach((byte, i) => {
    for (let bit = 0; bit < 8; bit++) if ((byte >> bit) & 1) positions.push(i * 8 + bit);
  });
  return positions;
}

/** A value's bit reader, or undefined for a value the operators never match. */
function bitsOf(value: unknown): ((position: number) => boolean) | undefined {
  if (bsonTag(value) === "Binary") {
    const bytes = (value as Binary).value();
    return (p) => ((bytes[p >> 3] ?? 0) >> (p & 7) & 1) === 1;
  }
  const integer = wholeNumber(value);
  if (integer === undefined) return undefined;
  if (integer < -(2n ** 63n) || integer >= 2n ** 63n) return undefined;
  return (p) => ((integer >> BigInt(Math.min(p, 63))) & 1n) === 1n;
}

function bitOperator(name: string, wantSet: boolean, all: boolean): QueryOperator {
  return ((selector: string, mask: unknown, _options: Options) => {
    const positions = maskPositions(name, mask);
    const parts = selector.split(".");
    const matches = (value: unknown) => {
      const bit = bitsOf(value);
      if (bit === undefined) return false;
      const test = (p: number) => bit(p) === wantSet;
      return all ? positions.every(test) : positions.some(test);
    };
    return (doc: Record<string, unknown>) => someAtPath(doc, parts, matches);
  }) as unknown as QueryOperator;
}

/** The operators, to register in mingo's context over its own. */
export const bitQueryOperators: Record<string, QueryOperator> = {
  $bitsAllSet: bitOperator("$bitsAllSet", true, true),
  $bitsAllClear: bitOperator("$bitsAllClear", false, true),
  $bitsAnySet: bitOperator("$bitsAnySet", true, false),
  $bitsAnyClear: bitOperator("$bitsAnyClear", false, false),
};
