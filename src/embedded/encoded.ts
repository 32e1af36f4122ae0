import type { Document } from "bson";
import { writeDocument } from "./bson.ts";
import type { Projector } from "./query/project.ts";

/** What an entry costs besides its bytes (map slot, entry, typed array): counted in the budget. */
const ENTRY_OVERHEAD = 200;

interface Encoded {
  project: Projector;
  bytes: Uint8Array;
}

/**
 * Stored documents as a projection serialises them, kept so that a page read again and again
 * (a list's first pages) is not projected and serialised anew on every request: that was two
 * thirds of the engine's time for a find of 10 documents. An entry is keyed by the stored
 * document, which is never mutated (an update stores a new object), and holds the projector
 * it was made with, which compileProjection reuses for the same spec; so no entry can go
 * stale, and a projector whose output depends on more than the document is never cached.
 * Bounded in bytes: a full cache starts over, so a wide scan holds at most the budget.
 */
export class EncodedDocs {
  readonly #entries = new Map<Document, Encoded>();
  #bytes = 0;

  constructor(readonly budget: number) {}

  /** The wire bytes of each document under `project` (cached ones, or made and cached now). */
  encode(docs: Document[], project: Projector): Uint8Array[] {
    const out: Uint8Array[] = new Array(docs.length);
    let missing: number[] | undefined;
    for (let i = 0; i < docs.length; i++) {
      const hit = this.#entries.get(docs[i]);
      if (hit !== undefined && hit.project === project) out[i] = hit.bytes;
      else (missing ??= []).push(i);
    }
    if (missing !== undefined) this.#fill(docs, project, missing, out);
    return out;
  }

  #fill(docs: Document[], project: Projector, missing: number[], out: Uint8Array[]): void {
    const raw = missing.map((i) => docs[i]);
    const projected = project ? project(raw) : raw;
    for (let k = 0; k < missing.length; k++) {
      // A copy of exact size: the serialiser's buffer may be a slice of a shared pool slab,
      // which a long-lived entry would keep alive whole.
      const bytes = new Uint8Array(writeDocument(projected[k]));
      out[missing[k]] = bytes;
      this.#store(raw[k], { project, bytes });
    }
  }

  #store(doc: Document, entry: Encoded): void {
    const cost = entry.bytes.length + ENTRY_OVERHEAD;
    if (this.#bytes + cost > this.budget) this.clear();
    const old = this.#entries.get(doc);
    if (old !== undefined) this.#bytes -= old.bytes.length + ENTRY_OVERHEAD;
    this.#entries.set(doc, entry);
    this.#bytes += cost;
  }

  /** Drops every entry. */
  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }
}
