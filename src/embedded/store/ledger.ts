/** Puts one piece of state (a document, a collection, an index) back to an earlier value. */
export type Restore = (previous: unknown) => void;

/** One write's claim on a piece of state: the value it found there, and how to put it back. */
interface Link {
  write: object;
  previous: unknown;
  restore: Restore;
}

/** Names a piece of state: a scope object (a collection, the catalog...) and a key in it. */
export type Slot = readonly [scope: object, key: unknown];

/**
 * Undo records of the writes applied in memory but not yet durable. Writes are applied before
 * their changes are appended to the sink, so when an append fails, what readers see must be
 * put back to what a restart would recover: the state without that write.
 *
 * Writes overlap: while one waits for the sink, the next may change the same document. So each
 * piece of state keeps a chain of the pending writes that changed it, oldest first, each with
 * the value it found. When a write fails: if it is the latest on the chain, the state goes back
 * to the value it found; otherwise the next write inherits that value (its own post-image is
 * whole, so if it succeeds it is what a restart sees; if it fails too, it restores the value
 * from before both). When a write succeeds, it and every older link are dropped: a durable,
 * newer version decides that state whatever happens to the older writes.
 */
export class Ledger {
  readonly #chains = new Map<object, Map<unknown, Link[]>>();

  /**
   * Records that `write` is about to change `slot`, which now holds `previous`. Returns false
   * when `write` already holds the slot (its first value is the one to restore).
   */
  record(write: object, [scope, key]: Slot, previous: unknown, restore: Restore): boolean {
    let chains = this.#chains.get(scope);
    if (!chains) this.#chains.set(scope, chains = new Map());
    const chain = chains.get(key);
    if (!chain) {
      chains.set(key, [{ write, previous, restore }]);
      return true;
    }
    if (chain[chain.length - 1].write === write) return false;
    chain.push({ write, previous, restore });
    return true;
  }

  /** `write` is durable: its links and the older ones on the same slots are done. */
  settle(write: object, slots: readonly Slot[]): void {
    for (const slot of slots) {
      const chain = this.#chain(slot);
      const at = chain?.findIndex((link) => link.write === write) ?? -1;
      if (at >= 0) this.#trim(slot, chain!, 0, at + 1);
    }
  }

  /** `write` will never be durable: undoes it, newest slot first, as described above. */
  rollBack(write: object, slots: readonly Slot[]): void {
    for (let i = slots.length - 1; i >= 0; i--) {
      const chain = this.#chain(slots[i]);
      const at = chain?.findIndex((link) => link.write === write) ?? -1;
      if (at < 0) continue; // a newer durable write already decides this state
      const link = chain![at];
      if (at === chain!.length - 1) link.restore(link.previous);
      else chain![at + 1].previous = link.previous;
      this.#trim(slots[i], chain!, at, 1);
    }
  }

  /** Number of pieces of state with pending writes (for tests: it returns to 0 when idle). */
  get pending(): number {
    let n = 0;
    for (const chains of this.#chains.values()) n += chains.size;
    return n;
  }

  #chain([scope, key]: Slot): Link[] | undefined {
    return this.#chains.get(scope)?.get(key);
  }

  #trim([scope, key]: Slot, chain: Link[], start: number, count: number): void {
    chain.splice(start, count);
    if (chain.length > 0) return;
    const chains = this.#chains.get(scope)!;
    chains.delete(key);
    if (chains.size === 0) this.#chains.delete(scope);
  }
}
