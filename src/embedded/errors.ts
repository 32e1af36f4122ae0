import type { Document } from "bson";
import { unaliasText } from "./field-names.ts";

/** MongoDB error codes the engine reports, with their code names. */
export const CODES = {
  InternalError: 1,
  BadValue: 2,
  Unauthorized: 13,
  FailedToParse: 9,
  UnsupportedFormat: 12,
  TypeMismatch: 14,
  InvalidLength: 16,
  Overflow: 15,
  IllegalOperation: 20,
  ConflictingUpdateOperators: 40,
  NamespaceNotFound: 26,
  PathNotViable: 28,
  IndexNotFound: 27,
  CursorNotFound: 43,
  MaxTimeMSExpired: 50,
  NamespaceExists: 48,
  DollarPrefixedFieldName: 52,
  NotSingleValueField: 54,
  EmptyFieldName: 56,
  CommandNotFound: 59,
  ImmutableField: 66,
  CannotCreateIndex: 67,
  InvalidOptions: 72,
  InvalidNamespace: 73,
  IndexOptionsConflict: 85,
  IndexKeySpecsConflict: 86,
  AmbiguousIndexKeyPattern: 181,
  GraphContainsCycle: 93,
  DocumentValidationFailure: 121,
  NotAReplicaSet: 123,
  ViewDepthLimitExceeded: 149,
  CommandNotSupportedOnView: 166,
  OptionNotSupportedOnView: 167,
  InvalidPipelineOperator: 168,
  QueryPlanKilled: 175,
  CursorInUse: 143,
  InvalidIndexSpecificationOption: 197,
  CursorKilled: 237,
  InvalidUUID: 207,
  NotImplemented: 238,
  TooManyLogicalSessions: 261,
  UnsupportedOpQueryCommand: 352,
  ConversionFailure: 241,
  QueryExceededMemoryLimitNoDiskUseAllowed: 292,
  BSONObjectTooLarge: 10334,
  InterruptedAtShutdown: 11600,
  DuplicateKey: 11000,
  Location13113: 13113,
  Location15955: 15955,
  Location16020: 16020,
  Location16554: 16554,
  Location16555: 16555,
  Location16556: 16556,
  Location16608: 16608,
  Location16609: 16609,
  Location16610: 16610,
  Location16611: 16611,
  Location16612: 16612,
  Location16007: 16007,
  Location17040: 17040,
  Location17124: 17124,
  Location17041: 17041,
  Location17043: 17043,
  Location17044: 17044,
  Location17045: 17045,
  Location17046: 17046,
  Location17047: 17047,
  Location17048: 17048,
  Location17080: 17080,
  Location17081: 17081,
  Location17082: 17082,
  Location17083: 17083,
  Location28714: 28714,
  Location40571: 40571,
  Location50736: 50736,
  Location50737: 50737,
  Location50738: 50738,
  Location50989: 50989,
  Location28766: 28766,
  Location28761: 28761,
  Location28759: 28759,
  Location28758: 28758,
  Location28762: 28762,
  Location28764: 28764,
  Location40068: 40068,
  Location40090: 40090,
  Location40091: 40091,
  Location40092: 40092,
  Location40093: 40093,
  Location40094: 40094,
  Location40096: 40096,
  Location40097: 40097,
  OutOfDiskSpace: 14031,
  Location28680: 28680,
  Location40066: 40066,
  Location40147: 40147,
  Location40148: 40148,
  Location40149: 40149,
  Location40192: 40192,
  Location40244: 40244,
  Location40242: 40242,
  Location31393: 31393,
  Location31253: 31253,
  Location31254: 31254,
  Location51276: 51276,
  Location40246: 40246,
  Location40245: 40245,
  Location40243: 40243,
  Location40241: 40241,
  Location40240: 40240,
  Location40239: 40239,
  Location40194: 40194,
  Location40199: 40199,
  Location40201: 40201,
  Location40414: 40414,
  Location40415: 40415,
  Location40324: 40324,
  Location40353: 40353,
  Location15998: 15998,
  Location16410: 16410,
  Location16411: 16411,
  Location5107200: 5107200,
  Location5107201: 5107201,
  Location15958: 15958,
  Location15959: 15959,
  Location40573: 40573,
  Location15952: 15952,
  Location40234: 40234,
  Location40235: 40235,
  Location40236: 40236,
  Location40237: 40237,
  Location15947: 15947,
  Location40238: 40238,
  Location51024: 51024,
  Location40602: 40602,
  Location40600: 40600,
  Location28803: 28803,
  Location5447000: 5447000,
  Location31170: 31170,
  Location40601: 40601,
  Location51047: 51047,
  Location16006: 16006,
  Location18533: 18533,
  Location18534: 18534,
  Location18535: 18535,
  Location18536: 18536,
  Location18537: 18537,
  Location18628: 18628,
  Location18629: 18629,
  Location40485: 40485,
  Location40554: 40554,
  Location40515: 40515,
  Location40517: 40517,
  Location40518: 40518,
  Location40521: 40521,
  Location5166401: 5166401,
  Location5166402: 5166402,
  Location5166405: 5166405,
  Location5439007: 5439007,
  Location5439008: 5439008,
  Location5439009: 5439009,
  Location5439010: 5439010,
  Location5439012: 5439012,
  Location5439013: 5439013,
  Location5439014: 5439014,
  Location5439015: 5439015,
  Location5439016: 5439016,
  Location5439017: 5439017,
  Location5439018: 5439018,
  Location31024: 31024,
  Location51074: 51074,
  Location51075: 51075,
  Location51091: 51091,
  Location51108: 51108,
  Location51103: 51103,
  Location51104: 51104,
  Location51105: 51105,
  Location51106: 51106,
  Location51107: 51107,
  Location51109: 51109,
  Location51110: 51110,
  Location51111: 51111,
  Location51132: 51132,
  Location51183: 51183,
  Location51199: 51199,
  Location51246: 51246,
  Location40400: 40400,
  ExceededMemoryLimit: 146,
  Location16493: 16493,
  Location4568: 4568,
  Location40099: 40099,
  Location4031700: 4031700,
  Location5414201: 5414201,
} as const;

/** A MongoDB error code name known to the engine. */
export type CodeName = keyof typeof CODES;

/** An error a command reports to the client as `{ ok: 0, errmsg, code, codeName }`. */
export class CommandError extends Error {
  /** Numeric MongoDB error code. */
  readonly code: number;

  /** `extra` carries additional reply fields such as keyPattern/keyValue. */
  constructor(
    readonly codeName: CodeName,
    message: string,
    readonly extra: Document = {},
  ) {
    super(message);
    this.code = CODES[codeName];
  }

  /** The reply document. */
  toReply(): Document {
    return { ok: 0, errmsg: unaliasText(this.message), code: this.code, codeName: this.codeName, ...this.extra };
  }
}

/**
 * mingo's refusals of an operator it does not know, as MongoDB words and numbers them: an
 * unknown stage is 40324, an unknown expression 168 (mingo looks an expression up among the
 * accumulators last, hence its wording), an unknown query operator BadValue.
 */
const MINGO_UNKNOWN_OPERATORS: readonly [RegExp, CodeName, (name: string) => string][] = [
  [
    /^unregistered pipeline operator (\$\S+)\.$/,
    "Location40324",
    (name) => `Unrecognized pipeline stage name: '${name}'`,
  ],
  [
    /^accumulator '(\$\S+)' is not registered\.$/,
    "InvalidPipelineOperator",
    (name) => `Unrecognized expression '${name}'`,
  ],
  [/^unknown query operator (\$\S+)$/, "BadValue", (name) => `unknown operator: ${name}`],
  [
    /^unknown top level operator: (\$\S+)$/,
    "BadValue",
    (name) =>
      `unknown top level operator: ${name}. If you have a field name that starts with a '$' symbol, consider using $getField or $setField.`,
  ],
];

/**
 * Turns anything thrown while running a command into a reply. mingo rejects bad queries,
 * updates and pipelines with a MingoError: that is the client's mistake (BadValue, or MongoDB's
 * own code for an unknown operator); anything else is the engine's (InternalError), still
 * answered rather than crashing.
 */
export function errorReply(error: unknown): Document {
  if (error instanceof CommandError) return error.toReply();
  // Field names spelled for mingo (field-names.ts) read as the client spelled them.
  const message = unaliasText(error instanceof Error ? error.message : String(error));
  const fromMingo = error instanceof Error && error.constructor.name === "MingoError";
  if (fromMingo) {
    for (const [pattern, codeName, wording] of MINGO_UNKNOWN_OPERATORS) {
      const unknown = pattern.exec(message);
      if (unknown) return new CommandError(codeName, wording(unknown[1])).toReply();
    }
  }
  const codeName: CodeName = fromMingo ? "BadValue" : "InternalError";
  return { ok: 0, errmsg: message, code: CODES[codeName], codeName };
}
