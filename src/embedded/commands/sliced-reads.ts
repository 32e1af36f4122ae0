import type { Document } from "bson";
import type { PlanReader } from "../cursors.ts";
import type { Paused } from "../query/interrupts.ts";
import { countDone, countOne, type CountSpec, type Plan, startCount } from "../query/plan.ts";
import type { Collection } from "../store/collection.ts";
import { namespace } from "./args.ts";
import type { CommandContext } from "./context.ts";
import { joinedNamespaces, resolveView } from "./views.ts";

// The commands that answer a read at once (count, distinct, countDocuments) drain it through
// CursorRegistry.drain: synchronously while its slice lasts, else across turns of the event
// loop, the read pinned meanwhile so that a drop reaches it (query/interrupts.ts).

/** `then` of a value that may come later: at once when it is there. */
export function whenDone<T, R>(value: T | Promise<T>, finish: (value: T) => R): R | Promise<R> {
  return value instanceof Promise ? value.then(finish) : finish(value);
}

/**
 * What a read of `name` goes through (a view: its base collection, and what its joins read),
 * so that a drop between two of its slices kills it.
 */
export function readerOf(ctx: CommandContext, name: string, planned?: { plan: Plan }): PlanReader {
  const view = resolveView(ctx, name);
  const index = planned?.plan.kind === "ixscan" ? planned.plan.scan.index.spec.name : undefined;
  const joins = view ? joinedNamespaces(ctx, view.pipeline) : undefined;
  return { reads: namespace(ctx.db, view ? view.source : name), index, joins };
}

/** Counts a sliced read of a view to its end (count and countDocuments of a view). */
export function countView(
  ctx: CommandContext,
  name: string,
  docs: Iterator<Paused<Document>>,
): number | Promise<number> {
  let n = 0;
  const counted = ctx.engine.cursors.drain(docs, ctx.operation, readerOf(ctx, name), () => {
    n++;
    return true;
  });
  return whenDone(counted, () => n);
}

/** A count of a collection's matches, its read sliced (see plan.ts startCount). */
export function countSliced(
  ctx: CommandContext,
  name: string,
  coll: Collection | undefined,
  spec: CountSpec,
): number | Promise<number> {
  const counting = startCount(coll, spec, true);
  if (counting.docs === undefined) return countDone(counting).n;
  const reader = readerOf(ctx, name, counting.plan && { plan: counting.plan });
  const counted = ctx.engine.cursors.drain(counting.docs, ctx.operation, reader, () => countOne(counting));
  return whenDone(counted, () => countDone(counting).n);
}
