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

/** What the engine's commands need of a write counter, in this thread or shared with another. */
export type WriteCounts = Pick<WriteCounter, "count" | "total" | "of">;

/** Slots of a {@link SharedWriteCounter}: collections sharing one only over-invalidate each other. */
const SHARED_SLOTS = 4096;
/** Int32 positions in the shared memory: the total, the epoch, then one slot per collection hash. */
const TOTAL = 0;
const EPOCH = 1;
const FIRST_SLOT = 2;

/**
 * The write counter in memory shared between the engine's thread and the app's, so the app reads
 * counts that are current the moment a write's reply reaches it: the engine adds to them (with
 * Atomics, before the reply is written) and the app loads them. Collections are mapped to a fixed
 * number of slots by a hash of their name; two collections in one slot move together, which only
 * over-invalidates. Counts wrap around at 2^31, which still moves them.
 */
export class SharedWriteCounter {
  readonly #counts: Int32Array;
  /**
   * Database → collection → its slot, so a read neither hashes the names again nor joins them
   * into a new string (whose own hash a single map keyed by `db\0collection` would compute on
   * every read: a cached page's hit asks here once per collection it read).
   */
  readonly #slots = new Map<string, Map<string, number>>();

  /** Counts in `memory`, or in new shared memory (what `memory` then gives the other thread). */
  constructor(readonly memory: SharedArrayBuffer = new SharedArrayBuffer((FIRST_SLOT + SHARED_SLOTS) * 4)) {
    this.#counts = new Int32Array(memory);
  }

  /** Counts one finished write to `db.collection`, or to unknown collections when `collection` is undefined. */
  count(db: string, collection: string | undefined): void {
    Atomics.add(this.#counts, collection === undefined ? EPOCH : this.#slotOf(db, collection), 1);
    Atomics.add(this.#counts, TOTAL, 1);
  }

  /** Every finished write so far, whatever it touched. */
  total(): number {
    return Atomics.load(this.#counts, TOTAL);
  }

  /** A number that moves whenever `db.collection` may have changed: its slot's writes plus those of unknown scope. */
  of(db: string, collection: string): number {
    return Atomics.load(this.#counts, EPOCH) + Atomics.load(this.#counts, this.#slotOf(db, collection));
  }

  #slotOf(db: string, collection: string): number {
    let slots = this.#slots.get(db);
    if (slots === undefined) this.#slots.set(db, slots = new Map());
    let slot = slots.get(collection);
    if (slot === undefined) {
      const name = `${db}\0${collection}`;
      // FNV-1a over the UTF-16 code units: the same slot in both threads, whatever the runtime.
      let hash = 0x811c9dc5;
      for (let i = 0; i < name.length; i++) hash = Math.imul(hash ^ name.charCodeAt(i), 0x01000193);
      slot = FIRST_SLOT + ((hash >>> 0) % SHARED_SLOTS);
      slots.set(collection, slot);
    }
    return slot;
  }
}
