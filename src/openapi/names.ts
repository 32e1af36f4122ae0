import type { Route } from "../handlers/route.ts";
import { ancestorsOf } from "../query/nesting.ts";
import type { Model } from "../model/define.ts";
import type { OperationKind } from "./kinds.ts";
import { COMMON_SCHEMAS } from "./schemas.ts";

function pascal(segment: string): string {
  return segment.split("-").map((part) => part[0].toUpperCase() + part.slice(1)).join("");
}

/**
 * How a route is named in operation ids: top-level by its model; nested by every ancestor
 * model and the relation (`UserOwnedPosts`), or the child model where the relation is named
 * after it (`UserPosts`, `UserPost`), joined by `glue`. With `""` these are the ids earlier
 * versions gave; `"_"` is the fallback when such an id is taken (model names have no `_`).
 */
function labels(route: Route, glue: string): { many: string; one: string } {
  const { model, parent } = route;
  if (!parent) return { many: pascal(model.route), one: model.name };
  const prefix = ancestorsOf(parent).map((step) => step.model.name).join(glue) + glue;
  if (parent.segment === model.route) return { many: prefix + pascal(model.route), one: prefix + model.name };
  return { many: prefix + pascal(parent.segment), one: `${prefix}${pascal(parent.segment)}Item` };
}

const VERBS: Record<OperationKind, string> = {
  list: "list",
  create: "create",
  show: "show",
  replace: "replace",
  patch: "patch",
  delete: "delete",
  forceDelete: "forceDelete",
  options: "options",
};

/** An operation's id as earlier versions gave it, and the one it takes when that is taken. */
export function operationIds(kind: OperationKind, route: Route): { preferred: string; fallback: string } {
  const id = (glue: string) => {
    const { many, one } = labels(route, glue);
    return VERBS[kind] + (kind === "list" ? many : one);
  };
  return { preferred: id(""), fallback: route.parent ? id("_") : id("") };
}

/**
 * Unique operation ids, deterministically: every operation keeps its preferred id unless
 * another wants the same one (model `UserPost` and the nested `/users/{userId}/posts`); then
 * the nested ones take their `_`-joined fallback (`listUser_Posts`), and should that still
 * clash, a number (`_2`) in route-table order.
 */
export function uniqueOperationIds(candidates: readonly { preferred: string; fallback: string }[]): string[] {
  const wanted = new Map<string, number>();
  for (const { preferred } of candidates) wanted.set(preferred, (wanted.get(preferred) ?? 0) + 1);
  const taken = new Set<string>();
  return candidates.map(({ preferred, fallback }) => {
    const base = wanted.get(preferred)! > 1 ? fallback : preferred;
    let id = base;
    for (let n = 2; taken.has(id); n++) id = `${base}_${n}`;
    taken.add(id);
    return id;
  });
}

/** The component schemas a model adds, by name, each with what it is (for the clash message). */
export function modelSchemaNames(model: Model): [string, string][] {
  const { name } = model;
  return [
    [name, `model ${name}'s records`],
    [`${name}Full`, `model ${name}'s records with every field`],
    [`${name}Related`, `model ${name}'s related records`],
    [`${name}Page`, `model ${name}'s list pages`],
    [`${name}Input`, `model ${name}'s POST/PUT bodies`],
    [`${name}Patch`, `model ${name}'s PATCH bodies`],
  ];
}

/**
 * Stops start-up with one line when two component schemas of the document would share a name:
 * a model named like a built-in schema (`Error`, `Pagination`, …) or like another model's
 * derived one (`UserPage` next to `User`). Renaming silently would change names clients
 * generate types from, so the app refuses instead and says which two clash.
 */
export function checkSchemaNames(models: readonly Model[]): void {
  const owners = new Map<string, { what: string; model?: string }>(
    Object.keys(COMMON_SCHEMAS).map((name) => [name, { what: "the built-in schema of that name" }]),
  );
  for (const model of models) {
    for (const [name, what] of modelSchemaNames(model)) {
      const other = owners.get(name);
      if (other !== undefined) {
        const rename = other.model ? `model ${other.model} or ${model.name}` : `model ${model.name}`;
        throw new TypeError(
          `OpenAPI schema name ${name} would be used twice, by ${other.what} and by ${what}: rename ${rename}, or set docs: false`,
        );
      }
      owners.set(name, { what, model: model.name });
    }
  }
}
