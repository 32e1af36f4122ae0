import type { Document } from "bson";
import { Aggregator } from "mingo/aggregator";
import { isPlainObject } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { ENGINE_CONTEXT } from "./mingo.ts";
import { aliasStage, needsAliases, spelledBack } from "./aliases.ts";

/** The values of a command's `let` variables, evaluated once (MongoDB binds them as constants). */
export type Variables = Readonly<Document>;

/** MongoDB's rule for user variable names: a lowercase or non-ASCII first character, then word characters. */
const VARIABLE_NAME = /^[a-z\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*$/;

/**
 * Reads and evaluates a command's `let` document. Each value is an aggregation expression
 * evaluated without a current document (`{$add: [1, 2]}` binds 3, `"$$NOW"` the time).
 * Returns undefined when the command has no `let`.
 */
export function parseLet(body: Document): Variables | undefined {
  const raw = body.let;
  if (raw === undefined || raw === null) return undefined;
  if (!isPlainObject(raw)) {
    throw new CommandError("TypeMismatch", "BSON field 'let' is the wrong type, expected type 'object'");
  }
  for (const name of Object.keys(raw)) {
    if (!VARIABLE_NAME.test(name)) {
      throw new CommandError("FailedToParse", `'${name}' starts with an invalid character for a user variable name`);
    }
  }
  if (Object.keys(raw).length === 0) return {};
  // Evaluated by mingo on names such as `constructor` spelled for it (aliases.ts), given back as sent.
  const named = needsAliases(raw);
  const stage = named ? aliasStage({ $replaceWith: raw }) as Document : { $replaceWith: raw };
  const [values] = spelledBack(() => new Aggregator([stage], { context: ENGINE_CONTEXT }).run<Document>([{}]), named);
  return values ?? {};
}

/** Wraps an `$expr` so that the variables are in scope, each bound as a literal (evaluated once already). */
function bindExpression(expression: unknown, variables: Variables): Document {
  const vars: Document = {};
  for (const [name, value] of Object.entries(variables)) vars[name] = { $literal: value };
  return { $let: { vars, in: expression } };
}

/**
 * A filter in which every `$expr` (the only place a filter reads variables, also under
 * `$and`/`$or`/`$nor`) sees the command's `let` variables. Inner `$let`s still shadow them, as
 * in MongoDB. The filter is returned unchanged without variables.
 */
export function bindFilter<T>(filter: T, variables: Variables | undefined): T {
  if (!variables || !isPlainObject(filter)) return filter;
  let bound: Document | undefined;
  for (const [key, value] of Object.entries(filter)) {
    let next: unknown = value;
    if (key === "$expr") next = bindExpression(value, variables);
    else if ((key === "$and" || key === "$or" || key === "$nor") && Array.isArray(value)) {
      next = value.map((part) => bindFilter(part, variables));
    }
    if (next !== value) (bound ??= { ...filter })[key] = next;
  }
  return (bound ?? filter) as T;
}
