/** A response body kept for reuse, with the ETag computed when it was made. */
export interface CachedBody {
  readonly text: string;
  readonly etag: string;
}

interface Entry extends CachedBody {
  readonly version: number;
}

/** Bounds of the cache: entries and total characters kept. */
export interface ResponseCacheLimits {
  maxEntries: number;
  maxChars: number;
}

/** Default bounds: 1,000 bodies, 8 Mi characters in all. */
export const DEFAULT_CACHE_LIMITS: ResponseCacheLimits = { maxEntries: 1000, maxChars: 8 * 1024 * 1024 };

/**
 * Bodies of successful GETs keyed by URL, valid while the data-change counter stands where it
 * stood before the request's queries ran. The counter moves after every write has been applied,
 * so an entry that might predate a change is never served: the cache is exact, not "fresh
 * enough". Only possible where every write passes through this process (the embedded engine).
 */
export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  private chars = 0;

  constructor(
    private readonly changeCount: () => number,
    private readonly limits: ResponseCacheLimits = DEFAULT_CACHE_LIMITS,
  ) {}

  /** The counter to remember before running a request's queries. */
  version(): number {
    return this.changeCount();
  }

  /** The body for `key` if nothing has been written since it was made. */
  get(key: string): CachedBody | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.version === this.changeCount()) return entry;
    this.remove(key, entry);
    return undefined;
  }

  /** Keeps a body made from queries that started at `version`. */
  set(key: string, version: number, text: string, etag: string): void {
    if (version !== this.changeCount() || text.length > this.limits.maxChars / 4) return;
    const old = this.entries.get(key);
    if (old) this.remove(key, old);
    this.entries.set(key, { version, text, etag });
    this.chars += text.length;
    this.evict();
  }

  private evict(): void {
    for (const [key, entry] of this.entries) {
      if (this.entries.size <= this.limits.maxEntries && this.chars <= this.limits.maxChars) return;
      this.remove(key, entry);
    }
  }

  private remove(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.chars -= entry.text.length;
  }
}
