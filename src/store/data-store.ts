import type { Db, Document } from "mongodb";
import type { Condition } from "../plan/conditions.ts";
import type { AncestorCheck, PageRead, RelationRead } from "../plan/read.ts";
import { checkAncestors } from "./ancestors.ts";
import type { CountResult } from "./counts.ts";
import type { RecordStore, StoredDocument } from "./records.ts";
import { resolveCondition } from "./related.ts";
import { type LoadedRelation, loadRelations, type RelationLoading } from "./relations.ts";
import { readWindow, type Window } from "./window.ts";

/** The driver's database as hooks get it (`ctx.db`), for their own lookups. */
export type HookDatabase = Db;

/** A list page as read: its documents in list order, the keys of its neighbours, and its total. */
export interface PageOutcome {
  window: Window;
  counted: CountResult;
}

/**
 * The one door to the database for requests: it runs the reads a plan compiles to (related
 * conditions, ancestors, a page and its count, a record, relation levels) through the record
 * stores of the app's collections, each command with its collection's time limit. Writes go
 * through the same record stores. Hooks get the driver's `Db` from here for their own lookups.
 */
export class DataStore {
  /** The database, for hooks' own lookups (`ctx.db`); the framework's reads never use it. */
  readonly db: Db;
  readonly #byModel: ReadonlyMap<string, RecordStore>;

  /** `stores`: each model's record store, by model name (models may share a collection, each with its own bounds). */
  constructor(db: Db, stores: ReadonlyMap<string, RecordStore>) {
    this.db = db;
    this.#byModel = stores;
  }

  /** The record store of one of the app's models. */
  readonly storeOf = (model: string): RecordStore => {
    const store = this.#byModel.get(model);
    if (store === undefined) throw new TypeError(`no model is named ${model}`);
    return store;
  };

  /** The MongoDB filter of a condition, its related conditions looked up first (one query each). */
  resolve(condition: Condition): Promise<Document> {
    return resolveCondition(condition, this.storeOf);
  }

  /** Every ancestor of a nested route at once; the outermost missing one is the 404. */
  checkAncestors(checks: readonly AncestorCheck[]): Promise<void> {
    return checkAncestors(checks, this.storeOf);
  }

  /** A list page and its total, read together. */
  async readPage(read: PageRead): Promise<PageOutcome> {
    const store = this.storeOf(read.model);
    const [window, counted] = await Promise.all([
      readWindow(store, read),
      store.counter.count(read.filter, read.count),
    ]);
    return { window, counted };
  }

  /** One record by id within `filter`, or null. */
  readOne(model: string, id: number, filter: Document, projection?: Document): Promise<StoredDocument | null> {
    return this.storeOf(model).findById(id, filter, projection);
  }

  /** The relation levels `reads` of a page of parents (see store/relations.ts). */
  loadRelations<S>(
    docs: readonly Document[],
    reads: readonly RelationRead<S>[],
    loading: Omit<RelationLoading<S>, "storeOf">,
  ): Promise<LoadedRelation<S>[]> {
    return loadRelations(docs, reads, { ...loading, storeOf: this.storeOf });
  }
}
