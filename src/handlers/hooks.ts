import type { HandlerName } from "../model/define.ts";
import type { ModelHooks } from "./context.ts";

/** Where a hook runs: the handler it belongs to, and whether before or after the handler's work. */
interface HookEntry {
  /** The handler, or "relation" for the relation loads of the reads (`with`). */
  readonly handler: HandlerName | "relation";
  readonly stage: "before" | "after";
  /** Only on `DELETE …/force`; a plain DELETE runs the pair without it. */
  readonly force?: true;
}

/**
 * Every hook, with where it runs: the one table the hook names, the handlers' hook lookups,
 * the response cache's bypass and the OpenAPI document's hooked operations all derive from. A
 * hook added to {@link ModelHooks} without an entry here, or an entry naming no handler,
 * fails to compile.
 */
export const HOOKS = {
  onBeforePaginate: { handler: "paginate", stage: "before" },
  onAfterPaginate: { handler: "paginate", stage: "after" },
  onBeforeShow: { handler: "show", stage: "before" },
  onAfterShow: { handler: "show", stage: "after" },
  onBeforeInsert: { handler: "insert", stage: "before" },
  onAfterInsert: { handler: "insert", stage: "after" },
  onBeforeUpdate: { handler: "update", stage: "before" },
  onAfterUpdate: { handler: "update", stage: "after" },
  onBeforePatch: { handler: "patch", stage: "before" },
  onAfterPatch: { handler: "patch", stage: "after" },
  onBeforeDelete: { handler: "delete", stage: "before" },
  onAfterDelete: { handler: "delete", stage: "after" },
  onBeforeForceDelete: { handler: "delete", stage: "before", force: true },
  onAfterForceDelete: { handler: "delete", stage: "after", force: true },
  onBeforeRelation: { handler: "relation", stage: "before" },
} as const satisfies Record<keyof ModelHooks, HookEntry>;

/** A hook's name. */
export type HookName = keyof typeof HOOKS;

/** Every hook name, for checking hook files at start-up. */
export const HOOK_NAMES: readonly HookName[] = Object.keys(HOOKS) as HookName[];

const BY_HANDLER = new Map<string, HookName[]>();
for (const name of HOOK_NAMES) {
  const { handler, force } = HOOKS[name] as HookEntry;
  const key = `${handler}${force ? " force" : ""}`;
  BY_HANDLER.set(key, [...(BY_HANDLER.get(key) ?? []), name]);
}

/** The hooks that run for a handler (its before and after pair), or for the force delete. */
export function hooksOf(handler: HandlerName | "relation", force = false): readonly HookName[] {
  return BY_HANDLER.get(`${handler}${force ? " force" : ""}`) ?? [];
}

/**
 * Whether a model has a hook for a read handler: such a read is never answered from the
 * response cache, since a hook may answer each request differently (by user, header or time).
 */
export function hookedHandler(hooks: ModelHooks, handler: "paginate" | "show"): boolean {
  return hooksOf(handler).some((name) => hooks[name] !== undefined);
}
