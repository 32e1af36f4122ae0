import { CommandError } from "./errors.ts";
import { bsonTypeOf } from "./query/bson-types.ts";

// The errors MongoDB's command parser (IDL) gives for a field of the wrong type or a missing
// one, worded as 7.0 words them: `field` is the dotted path, as in `getMore.collection`.

/** 14 TypeMismatch: "BSON field 'x' is the wrong type 'int', expected type 'string'". */
export function wrongType(field: string, value: unknown, expected: string): CommandError {
  return new CommandError(
    "TypeMismatch",
    `BSON field '${field}' is the wrong type '${bsonTypeOf(value)}', expected type '${expected}'`,
  );
}

/** 40414: "BSON field 'x' is missing but a required field". */
export function missingField(field: string): CommandError {
  return new CommandError("Location40414", `BSON field '${field}' is missing but a required field`);
}
