/**
 * Parse → plan: a read request (its path, its parameters, its cursor) becomes an immutable,
 * typed plan without touching the database. Every parameter error is thrown here, so a bad
 * request sends nothing to the database; the store executes the plan (query/compile.ts turns
 * it into the store's reads).
 */
import type { Document } from "bson";
import { parseRecordId, QueryParams } from "../http/params.ts";
import type { CountStrategy, Model } from "../model/define.ts";
import type { ModelLookup, ModelRegistry } from "../model/registry.ts";
import { allOf, type Condition, EVERYTHING } from "../plan/conditions.ts";
import { type SortKey, sortKeys } from "../plan/keyset.ts";
import type { AncestorCheck, KeyPosition } from "../plan/read.ts";
import { storedName } from "./columns.ts";
import { parseCount } from "./count.ts";
import type { CursorSealer } from "./cursor.ts";
import { parseFields } from "./fields.ts";
import type { QueryLimits } from "./limits.ts";
import { checkPinned, openCursor, type OpenedCursor, type ParamSource } from "./list-cursor.ts";
import {
  ancestorChecks,
  ancestorsOf,
  childFilter,
  linkRelation,
  type ParentIds,
  parentIdsOf,
  type ParentLink,
  reachable,
} from "./nesting.ts";
import { parsePage } from "./page.ts";
import { readScope } from "./scope.ts";
import { parseSort } from "./sort.ts";
import { parseConditions } from "./where.ts";
import { parseWith, type WithNode } from "./with.ts";
import type { RequestAccess } from "./access.ts";
import { apiError, notFound } from "../errors.ts";
import { relatedIn } from "../plan/conditions.ts";

/** The query parameters SHOW takes (a model's hooks may take more: its `params`). */
export const SHOW_PARAMETERS: readonly string[] = ["fields", "with", "trashed"];

/** The query parameters PAGINATE takes. */
export const LIST_PARAMETERS: readonly string[] = [
  "page",
  "per_page",
  "cursor",
  "q",
  "sort",
  "count",
  ...SHOW_PARAMETERS,
];

/** What parsing a read needs of its route and the app: all known at start-up. */
export interface ReadRoute {
  model: Model;
  /** On a nested route: the parent the records belong to (and its own, and so on). */
  parent?: ParentLink;
  registry: ModelRegistry;
  limits: QueryLimits;
  /** Opens list cursors (their signature). */
  cursors: CursorSealer;
}

/** What every read plan holds: the records' model, their scope, the fields and relations to return. */
export interface ReadPlan {
  /** The model, as the request's principal may read it (with `auth`: fields its rule does not let it read are hidden). */
  readonly model: Model;
  /** `trashed=true`: soft-deleted records are read too (the model's, its ancestors' and its relations'). */
  readonly trashed: boolean;
  /** On a nested route: every ancestor to look up before the read (outermost first); none elsewhere. */
  readonly ancestors: readonly AncestorCheck[];
  /** The server's own filter: the read scope, and on a nested route the parent's id. */
  readonly scope: Document;
  /** On a nested route: what its relation reaches (the relation's own `filter`); `{}` elsewhere. */
  readonly reach: Document;
  /** With `auth`: the records the principal's rule reaches (`{}` when unrestricted, or without `auth`). */
  readonly rule: Document;
  /** With `auth`: the request's access, which the related models' reads take their rules from. */
  readonly access?: RequestAccess;
  /** Selected fields, or null for every visible one. */
  readonly fields: readonly string[] | null;
  readonly with: readonly WithNode[];
  /** Every collection the read touches, for the response cache: its own, its ancestors', its relations', its related conditions'. */
  readonly collections: readonly string[];
}

/** A list page: where it is, in what order, under which conditions, and how its total is counted. */
export interface ListPlan extends ReadPlan {
  /** The page number; 1 on a page read by cursor (its position is the cursor's). */
  readonly page: number;
  readonly perPage: number;
  /** Where a cursor page starts, or null for a page by number. */
  readonly position: KeyPosition | null;
  readonly sort: Document;
  /** The sort's keys up to `_id`: what cursors are made of. */
  readonly keys: readonly SortKey[];
  readonly count: CountStrategy;
  /** The client's `q`. */
  readonly where: Condition;
  /** The parameters the page's cursors pin, as the client sent them (or as the cursor pinned them). */
  readonly pinned: { readonly q: string | null; readonly sort: string | null; readonly trashed: string | null };
}

/** One record by id, with its fields and relations. */
export interface ShowPlan extends ReadPlan {
  readonly id: number;
}

/** Matches nothing: an ancestor the principal may not see. */
const UNSEEN: Document = Object.freeze({ _id: { $in: [] } });

/**
 * What a nested route's path says about the parent: the ancestors to look up (each within its
 * read scope and, with `auth`, what the principal's SHOW rule on it reaches: a parent it cannot
 * see is a 404), the child filter, and what the route's relation reaches.
 */
function nesting(route: ReadRoute, ids: ParentIds | undefined, trashed: boolean, access?: RequestAccess) {
  const link = route.parent;
  if (!link || !ids) return { ancestors: [], parent: {}, reach: {} };
  // Listing may include a trashed parent's children (trashed=true); creating under one may not.
  const scopeOf = (model: Model) => {
    const scope = readScope(model, trashed);
    return access ? allOf([scope, access.grant(model, "show")?.filter ?? UNSEEN]) : scope;
  };
  return { ancestors: ancestorChecks(link, ids, scopeOf), parent: childFilter(link, ids), reach: reachable(link) };
}

/** The principal's view of the route's model for `operation`, its row filter, and the models as `with` and `q` may load them. */
function accessed(route: ReadRoute, operation: "paginate" | "show", access: RequestAccess | undefined) {
  if (access === undefined) return { model: route.model, rule: {}, registry: route.registry };
  const grant = access.require(route.model, operation);
  return { model: grant.view, rule: grant.filter, registry: access.relationRegistry(route.registry) };
}

function addRelated(nodes: readonly WithNode[], into: Set<string>): void {
  for (const node of nodes) {
    into.add(node.model.collection);
    addRelated(node.children, into);
  }
}

/** The collections a read touches: its model's, every ancestor's, those of `with`, those related conditions read. */
function collectionsOf(route: ReadRoute, nodes: readonly WithNode[], where?: Condition): string[] {
  const collections = new Set([route.model.collection]);
  for (const step of ancestorsOf(route.parent)) collections.add(step.model.collection);
  addRelated(nodes, collections);
  if (where) { for (const related of relatedIn(where)) collections.add(related.collection); }
  return [...collections];
}

/** What a read is planned against: the route, the principal's view of its model, the models `with` and `q` see. */
interface Planning {
  route: ReadRoute;
  model: Model;
  rule: Document;
  registry: ModelLookup;
  access?: RequestAccess;
}

/** The parts of SHOW and PAGINATE alike: path, scope, fields, with. */
function readPlan(planning: Planning, params: ParamSource, ids: ParentIds | undefined, trashed: boolean) {
  const { route, model, registry, access, rule } = planning;
  const { ancestors, parent, reach } = nesting(route, ids, trashed, access);
  return {
    model,
    trashed,
    ancestors,
    scope: { ...readScope(model, trashed), ...parent },
    reach,
    rule,
    access,
    fields: parseFields(params.get("fields"), model),
    with: parseWith(params.get("with"), model, registry, route.limits),
  };
}

/**
 * A plan with `shared`'s keys written out one by one rather than spread: spreading the shared
 * parts into the list's plan cost a list request about 20 µs (V8's copy of an object literal
 * of this size takes its slow path), more than parsing all of its parameters.
 */
function withShared<T extends object>(shared: ReturnType<typeof readPlan>, own: T) {
  const { model, trashed, ancestors, scope, reach, rule, access, fields } = shared;
  return { model, trashed, ancestors, scope, reach, rule, access, fields, with: shared.with, ...own };
}

/**
 * A nested list (`/users/1/posts`, at any depth, and the old URL too) honours the options of
 * the relation it lists: the `sort` when the request sends none, and `limit` as the largest
 * page (the default page size is lowered to it; a larger `per_page` is refused like any
 * out-of-range one). Its fixed `filter` is the plan's `reach`.
 */
function relationPaging(route: ReadRoute, source: ParamSource, sort: Document, perPage: number) {
  const relation = route.parent && linkRelation(route.parent);
  if (!relation) return { sort, perPage };
  if (relation.sort && !source.get("sort")?.trim()) {
    const ordered: Record<string, 1 | -1> = {};
    for (const [field, direction] of Object.entries(relation.sort)) ordered[storedName(field)] = direction;
    sort = { ...ordered, _id: ordered._id ?? 1 };
  }
  if (relation.limit === undefined || perPage <= relation.limit) return { sort, perPage };
  const asked = source.get("per_page");
  if (asked !== null) {
    throw apiError("param.integerRange", { name: "per_page", min: 1, max: relation.limit, value: asked });
  }
  return { sort, perPage: relation.limit };
}

/**
 * Parses a list request: path, then the cursor (its signature; no database needed), then every
 * query parameter, into the plan PAGINATE runs. A cursor's pinned parameters (sort, q,
 * per_page, trashed) plan the page; the request may repeat them only with the same meaning.
 */
export async function planList(
  url: string,
  route: ReadRoute,
  path: Record<string, string>,
  access?: RequestAccess,
): Promise<ListPlan> {
  const ids = route.parent ? parentIdsOf(path, route.parent) : undefined;
  const given = new QueryParams(url);
  given.refuseUnknown(LIST_PARAMETERS, route.model.params);
  const planning: Planning = { route, ...accessed(route, "paginate", access), access };
  const { model } = planning;
  const cursor = given.get("cursor") === null ? null : await openCursor(given, url, route.cursors, access);
  // A cursor's pinned `trashed` was checked when the cursor was made.
  const trashed = cursor ? cursor.state.trashed === "true" : given.flag("trashed");
  const source: ParamSource = cursor?.params ?? given;
  const { page, perPage: asked } = parsePage(source, model);
  const count = parseCount(source.get("count"), model);
  const shared = readPlan(planning, source, ids, trashed);
  const conditions = () => ({
    model,
    limits: route.limits,
    registry: planning.registry,
    trashed,
    ruleOf: access && relationRule(access),
  });
  const q = source.get("q");
  // Most lists send no `q`: their settings are not even built.
  const where = q === null ? EVERYTHING : parseConditions(q, model, conditions());
  const parsedSort = parseSort(source.get("sort"), model);
  if (cursor) checkPinned(given, { sort: parsedSort, where }, conditions(), cursor.state);
  const { sort, perPage } = relationPaging(route, source, parsedSort, asked);
  return withShared(shared, {
    page,
    perPage,
    position: cursor && { side: cursor.state.side, key: cursor.state.key },
    sort,
    keys: sortKeys(sort),
    count,
    where,
    pinned: { q: source.get("q"), sort: source.get("sort"), trashed: source.get("trashed") },
    collections: collectionsOf(route, shared.with, where),
  });
}

/** Parses a show request: the ancestors' ids on a nested route, the record id, then `fields`, `with` and `trashed`. */
export function planShow(
  url: string,
  route: ReadRoute,
  path: Record<string, string>,
  access?: RequestAccess,
): ShowPlan {
  const ids = route.parent ? parentIdsOf(path, route.parent) : undefined;
  const id = parseRecordId(path.id);
  // Anything but a positive integer cannot name a record: 404.
  if (id === null) throw notFound(route.model.name);
  const params = new QueryParams(url);
  params.refuseUnknown(SHOW_PARAMETERS, route.model.params);
  const planning: Planning = { route, ...accessed(route, "show", access), access };
  const shared = readPlan(planning, params, ids, params.flag("trashed"));
  return withShared(shared, { id, collections: collectionsOf(route, shared.with) });
}

/** The row filter a related model's records are loaded within, for this request's principal. */
function relationRule(access: RequestAccess): (model: Model) => Document {
  return (model) => access.relationFilter(model);
}

export type { OpenedCursor, ParamSource };
