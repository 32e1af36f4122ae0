import type { Options } from "mingo/types";
import type { Collation } from "../store/collation.ts";

/**
 * The collation a mingo options object carries (the engine puts it there, see mingo.ts), or
 * undefined for binary string order. Every engine operator that compares strings reads it here.
 */
export function collationOf(options: Options): Collation | undefined {
  const collation = (options as { collation?: Partial<Collation> }).collation;
  return typeof collation?.compare === "function" ? (collation as Collation) : undefined;
}
