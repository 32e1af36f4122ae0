/**
 * Counts finished writes per collection, so the process that owns the engine can keep what it
 * read from a collection (a count, a response body) exactly until that collection is next
 * written, instead of until any write at all.
 *
 * A write whose collection is not known (dropDatabase, or any command outside the table) moves
 * the counter of every collection at once through a shared epoch: over-invalidating is safe,
 * missing a change is not.
 */
export class WriteCounter {
  /** Finished writes of any kind. */
  #total = 0;
  /** Writes that may have touched every collection. */
  #epoch = 0;
  /** Database → collection → finished writes naming that collection. */
  readonly #byCollection = new Map<string, Map<string, number>>();

  /** Counts one finished write to `db.collection`, or to unknown collections when `collection` is undefined. */
  count(db: string, collection: string | undefined): void {
    this.#total++;
    if (collection === undefined) {
      this.#epoch++;
      return;
    }
    let colls = this.#byCollection.get(db);
    if (!colls) this.#byCollection.set(db, colls = new Map());
    colls.set(collection, (colls.get(collection) ?? 0) + 1);
  }

  /** Every finished write so far, whatever it touched. */
  total(): number {
    return this.#total;
  }

  /**
   * A number that moves whenever `db.collection` may have changed and stands still otherwise:
   * the collection's own writes plus the writes of unknown scope.
   */
  of(db: string, collection: string): number {
    return this.#epoch + (this.#byCollection.get(db)?.get(collection) ?? 0);
  }
}
