/** How often one index served as an operation's winning plan, since it was registered. */
export interface IndexAccesses {
  ops: number;
  since: Date;
}

/**
 * What `$indexStats` and `$collStats` report of a collection's use: per index, the operations
 * whose plan read it, and the collection scans. Counted by the query planner's callers, never
 * by `explain`; held in memory only, so a restart starts them afresh, as MongoDB's do.
 */
export class CollectionUsage {
  readonly #indexes = new Map<string, IndexAccesses>();
  #collectionScans = 0;

  /** Starts counting an index's accesses from zero, now (a new index, or one loaded at start-up). */
  register(name: string): void {
    this.#indexes.set(name, { ops: 0, since: new Date() });
  }

  /** Stops counting a dropped index's accesses. */
  forget(name: string): void {
    this.#indexes.delete(name);
  }

  /** Counts one operation that read index `name`. */
  usedIndex(name: string): void {
    const accesses = this.#indexes.get(name);
    if (accesses !== undefined) accesses.ops++;
  }

  /** Counts one operation that scanned the whole collection. */
  scanned(): void {
    this.#collectionScans++;
  }

  /** Index `name`'s accesses so far (a copy), or undefined when it is not registered. */
  accesses(name: string): IndexAccesses | undefined {
    const accesses = this.#indexes.get(name);
    return accesses === undefined ? undefined : { ...accesses };
  }

  /** Collection scans so far. */
  get collectionScans(): number {
    return this.#collectionScans;
  }
}
