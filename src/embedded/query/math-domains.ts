import { toNumber } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { argumentsFor, type Arity, exactly, type Expression, literal } from "./expression-arguments.ts";
import { numberKind } from "./number-arithmetic.ts";

/**
 * The domains of MongoDB's logarithms, square root and trigonometry: arguments outside them are
 * refused with MongoDB's codes, where mingo answered null or NaN.
 */

/** The bounds a function accepts, for the error MongoDB gives outside them. */
interface Domain {
  low: number;
  high: number;
  /** Whether each bound is allowed (`[` or `]`). */
  closed: [boolean, boolean];
}

const DOMAINS: Record<string, Domain> = {
  $asin: { low: -1, high: 1, closed: [true, true] },
  $acos: { low: -1, high: 1, closed: [true, true] },
  $atanh: { low: -1, high: 1, closed: [true, true] },
  $acosh: { low: 1, high: Infinity, closed: [true, true] },
  $sin: { low: -Infinity, high: Infinity, closed: [false, false] },
  $cos: { low: -Infinity, high: Infinity, closed: [false, false] },
  $tan: { low: -Infinity, high: Infinity, closed: [false, false] },
};

function outside(x: number, { low, high, closed }: Domain): boolean {
  return (closed[0] ? x < low : x <= low) || (closed[1] ? x > high : x >= high);
}

function boundText(x: number): string {
  return x === Infinity ? "inf" : x === -Infinity ? "-inf" : String(x);
}

/**
 * MongoDB's domain errors, checked before the function runs (mingo gave null or NaN): a
 * logarithm of a number that is not positive (28761, 28766, 28758; a base that is not positive
 * or is 1, 28759), `$sqrt` of a negative (28714), and trigonometry outside its bounds (50989).
 * NaN passes, as in MongoDB.
 */
function checkDomain(name: string, numbers: number[]): void {
  const [x, base] = numbers;
  if (name === "$ln" && x <= 0) {
    throw new CommandError("Location28766", `$ln's argument must be a positive number, but is ${x}`);
  }
  if (name === "$log10" && x <= 0) {
    throw new CommandError("Location28761", `$log10's argument must be a positive number, but is ${x}`);
  }
  if (name === "$log" && x <= 0) {
    throw new CommandError("Location28758", `$log's argument must be a positive number, but is ${x}`);
  }
  if (name === "$log" && (base <= 0 || base === 1)) {
    throw new CommandError("Location28759", `$log's base must be a positive number not equal to 1, but is ${base}`);
  }
  if (name === "$sqrt" && x < 0) {
    throw new CommandError("Location28714", "$sqrt's argument must be greater than or equal to 0");
  }
  const domain = DOMAINS[name];
  if (domain && outside(x, domain)) {
    const [open, close] = [domain.closed[0] ? "[" : "(", domain.closed[1] ? "]" : ")"];
    throw new CommandError(
      "Location50989",
      `cannot apply ${name} to ${boundText(x)}, value must be in ${open}${boundText(domain.low)},${
        boundText(domain.high)
      }${close}`,
    );
  }
}

/** An expression whose numeric arguments are first checked against the function's domain. */
export function inDomain(name: string, arity: Arity, inner: Expression): Expression {
  return (obj, expr, options) => {
    const args = argumentsFor(arity, obj, expr, options);
    if (name === "$log") exactly(name, args, 2);
    if (args.every((v) => numberKind(v) !== undefined)) checkDomain(name, args.map(toNumber));
    return inner(obj, arity === "one" ? literal(args[0]) : args.map(literal), options);
  };
}
