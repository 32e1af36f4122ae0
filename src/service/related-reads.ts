import type { Model } from "../model/define.ts";
import { parseWithSyntax, type WithItem } from "../query/with-syntax.ts";

/** Deeper than any `with` the app accepts: a deeper one is refused by the handler, before it reads anything. */
const ANY_NESTING = 64;

/**
 * The other models a read request reads records of: those `with` loads (at every depth) and
 * those related conditions in `q` look into (`user.surname.$like`). Per-model rate limits count
 * the request against each of them too, so `/users?with=posts` cannot read posts past Post's
 * limit. A malformed `with` or `q` reads nothing (the handler refuses it first): no names.
 * @example relatedReads(User, "http://h/api/v1/users?with=posts{comments}", models) // Set { "Post", "Comment" }
 */
export function relatedReads(model: Model, url: string, models: ReadonlyMap<string, Model>): Set<string> {
  const names = new Set<string>();
  const query = url.indexOf("?");
  if (query < 0) return names;
  const params = new URLSearchParams(url.slice(query + 1));
  for (const raw of params.getAll("with")) withModels(model, items(raw), models, names);
  for (const raw of params.getAll("q")) conditionModels(model, json(raw), models, names);
  names.delete(model.name);
  return names;
}

function items(raw: string): WithItem[] {
  try {
    return parseWithSyntax(raw, ANY_NESTING);
  } catch {
    return [];
  }
}

function json(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

function withModels(owner: Model, list: readonly WithItem[], models: ReadonlyMap<string, Model>, into: Set<string>) {
  for (const item of list) {
    const related = models.get(owner.relations.get(item.name)?.model ?? "");
    if (related === undefined) continue;
    into.add(related.name);
    withModels(related, item.braces ?? [], models, into);
  }
}

/** Models named by the `relation.field` keys of a `q` (its objects at any depth, `$or.`/`$and.` prefixes aside). */
function conditionModels(model: Model, node: unknown, models: ReadonlyMap<string, Model>, into: Set<string>) {
  if (Array.isArray(node)) {
    for (const child of node) conditionModels(model, child, models, into);
    return;
  }
  if (node === null || typeof node !== "object") return;
  for (const key of Object.keys(node)) {
    const field = key.replace(/^\$(or|and)\./, "");
    const dot = field.indexOf(".");
    if (dot <= 0) continue;
    const related = models.get(model.relations.get(field.slice(0, dot))?.model ?? "");
    if (related !== undefined) into.add(related.name);
  }
}
