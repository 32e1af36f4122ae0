import type { Decimal128, Document, Long } from "bson";
import { bsonTag } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { bsonTypeOf, isBsonNumber } from "../query/bson-types.ts";

// `maxTimeMS` as MongoDB 7.0 reads it. Every command may carry it (a generic argument, read by
// parseMaxTimeMS in query/max_time_ms_parser.cpp): a number, whole if it is a double, from 0
// (no limit) to 2^31 - 1. Before that, the commands whose IDL declares the field check it on
// their own: aggregate and getMore as a safeInt64 (14 TypeMismatch for another type; aggregate
// also refuses a negative with 51024, its `gte: 0` validator), find and count through the same
// parser.

const INT32_MAX = 2n ** 31n - 1n;
const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

/** Commands whose IDL types `maxTimeMS` as a safeInt64, and whether it validates `>= 0`. */
const SAFE_INT64: Record<string, boolean> = { aggregate: true, getMore: false };

/**
 * A number as MongoDB's BSONElement::safeNumberLong reads it: a double truncated (NaN is 0, and
 * beyond the int64 range it clamps), a Decimal128 rounded half to even, an int64 exactly.
 */
function safeLong(value: unknown): bigint {
  if (bsonTag(value) === "Long") return (value as Long).toBigInt();
  const decimal = bsonTag(value) === "Decimal128";
  const n = decimal ? Number((value as Decimal128).toString()) : Number(value);
  if (Number.isNaN(n)) return 0n;
  if (n >= 2 ** 63) return INT64_MAX;
  if (n <= -(2 ** 63)) return INT64_MIN;
  return BigInt(decimal ? roundHalfEven(n) : Math.trunc(n));
}

function roundHalfEven(n: number): number {
  const floor = Math.floor(n);
  const fraction = n - floor;
  if (fraction !== 0.5) return Math.round(n);
  return floor % 2 === 0 ? floor : floor + 1;
}

/** The IDL's own check of a safeInt64 `maxTimeMS` (aggregate, getMore), before the generic one. */
function checkDeclared(command: string, value: unknown): void {
  if (!(command in SAFE_INT64) || value === undefined || value === null) return;
  if (!isBsonNumber(value)) {
    throw new CommandError(
      "TypeMismatch",
      `BSON field '${command}.maxTimeMS' is the wrong type '${
        bsonTypeOf(value)
      }', expected types '[long, int, decimal, double']`,
    );
  }
  const long = safeLong(value);
  if (SAFE_INT64[command] && long < 0n) {
    throw new CommandError("Location51024", `BSON field 'maxTimeMS' value must be >= 0, actual value '${long}'`);
  }
}

/**
 * The `maxTimeMS` of a command (`body`, whose name is `command`), checked as MongoDB checks it;
 * 0 when absent (no limit).
 */
export function parseMaxTimeMS(command: string, body: Document): number {
  const value = body.maxTimeMS;
  if (value === undefined) return 0;
  checkDeclared(command, value);
  if (!isBsonNumber(value)) throw new CommandError("BadValue", "maxTimeMS must be a number");
  const long = safeLong(value);
  if (long < 0n || long > INT32_MAX) {
    throw new CommandError("BadValue", `${long} value for maxTimeMS is out of range`);
  }
  const double = bsonTypeOf(value) === "double";
  if (double && Math.floor(Number(value)) !== Number(value)) {
    throw new CommandError("BadValue", "maxTimeMS has non-integral value");
  }
  return Number(long);
}
