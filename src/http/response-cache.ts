import type { HeaderRecord } from "./reply.ts";

/** A response body kept for reuse, with the ETag computed when it was made. */
export interface CachedBody {
  /**
   * The body as UTF-8, encoded once when it was kept: a hit hands these bytes to the socket
   * as they are rather than a string to encode again, and the cache's bound counts what it
   * actually holds (docs/benchmarks.md, seventh pass: no measurable speed difference).
   */
  readonly bytes: Uint8Array;
  readonly etag: string;
  /** Headers that go with the body (the handlers keep the whole record a hit answers with). */
  readonly headers?: Readonly<HeaderRecord>;
}

interface Entry extends CachedBody {
  /** The collections the body was read from, and their combined write count at the time. */
  readonly collections: readonly string[];
  readonly version: number;
}

/** The engine's write counters, as the cache reads them. */
export interface WriteCounts {
  /** Every finished write so far. */
  total(): number;
  /** A number that moves whenever `collection` may have changed. */
  of(collection: string): number;
}

/** Bounds of the cache: entries and total body bytes kept. */
export interface ResponseCacheLimits {
  maxEntries: number;
  maxBytes: number;
}

/** Default bounds: 1,000 bodies, 8 MiB in all. */
export const DEFAULT_CACHE_LIMITS: ResponseCacheLimits = { maxEntries: 1000, maxBytes: 8 * 1024 * 1024 };

const utf8 = new TextEncoder();

/**
 * Bodies of successful GETs keyed by URL, each valid while the write counters of the
 * collections it was read from (the model's, and those pulled in through `with`) stand where they
 * stood when its queries ran. A counter moves after every write has been applied, so an entry
 * that might predate a change is never served: the cache is exact, not "fresh enough", and a
 * write to one collection leaves bodies read from others alone. Only possible where every write
 * passes through this process (the embedded engine).
 */
export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(
    private readonly counts: WriteCounts,
    private readonly limits: ResponseCacheLimits = DEFAULT_CACHE_LIMITS,
  ) {}

  /** The counter to remember before running a request's queries. */
  version(): number {
    return this.counts.total();
  }

  /** The body for `key` if none of the collections it was read from has been written since. */
  get(key: string): CachedBody | undefined {
    return this.lookup(key).body;
  }

  /**
   * {@link get}, also telling a key never stored (or evicted) from one whose body a write made
   * outdated (`stale`), for the Cache-Status header.
   */
  lookup(key: string): { body?: CachedBody; stale: boolean } {
    const entry = this.entries.get(key);
    if (entry === undefined) return { stale: false };
    if (entry.version === this.versionOf(entry.collections)) return { body: entry, stale: false };
    this.remove(key, entry);
    return { stale: true };
  }

  /**
   * Keeps a body read from `collections` by queries that started at `version`. Only when no
   * write at all finished meanwhile: then the collections' counters are the ones the queries saw.
   * Bodies over a quarter of `maxBytes` are not kept. Returns whether the body was kept.
   */
  set(
    key: string,
    version: number,
    collections: readonly string[],
    text: string,
    etag: string,
    headers?: Readonly<HeaderRecord>,
  ): boolean {
    // A UTF-8 body has at least as many bytes as its text has characters.
    if (version !== this.counts.total() || text.length > this.limits.maxBytes / 4) return false;
    const bytes = utf8.encode(text);
    if (bytes.byteLength > this.limits.maxBytes / 4) return false;
    const old = this.entries.get(key);
    if (old) this.remove(key, old);
    this.entries.set(key, { collections, version: this.versionOf(collections), bytes, etag, headers });
    this.bytes += bytes.byteLength;
    this.evict();
    return true;
  }

  // A sum of counters that only grow moves whenever any one of them moves.
  private versionOf(collections: readonly string[]): number {
    let sum = 0;
    for (const collection of collections) sum += this.counts.of(collection);
    return sum;
  }

  private evict(): void {
    for (const [key, entry] of this.entries) {
      if (this.entries.size <= this.limits.maxEntries && this.bytes <= this.limits.maxBytes) return;
      this.remove(key, entry);
    }
  }

  private remove(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.bytes -= entry.bytes.byteLength;
  }
}
