import { apiError } from "../errors.ts";

/**
 * The comma-separated list parameters. A repeat of one of them adds to the list
 * (`fields=id&fields=name` is `fields=id,name`): that is how OpenAPI's exploded form style, the
 * default of openapi-fetch and other generated clients, sends an array.
 */
const LIST_VALUED: ReadonlySet<string> = new Set(["fields", "with", "sort"]);

/**
 * Read access to query parameters where each name may appear once: a repeated parameter is
 * ambiguous, so it is refused rather than silently using the first or last value, except a
 * list-valued one ({@link LIST_VALUED}), whose repeats are joined. Parsed from the URL's own
 * query string, so empty repeats (`page=&page=2`) are seen too.
 */
export class QueryParams {
  private params: URLSearchParams | undefined;

  constructor(private readonly url: string) {}

  private all(): URLSearchParams {
    if (!this.params) {
      const start = this.url.indexOf("?");
      const end = this.url.indexOf("#", start);
      this.params = new URLSearchParams(start === -1 ? "" : this.url.slice(start + 1, end === -1 ? undefined : end));
    }
    return this.params;
  }

  /**
   * Refuses a parameter the route does not take, naming it and the ones it does: a misspelt
   * `pge=2` would otherwise be ignored silently, and a made-up one would make every URL new
   * to the response cache.
   */
  refuseUnknown(known: readonly string[], extra: ReadonlySet<string>): void {
    for (const name of this.all().keys()) {
      if (known.includes(name) || extra.has(name)) continue;
      const all = [...known, ...extra];
      if (all.length === 0) throw apiError("param.none", { name });
      throw apiError("param.unknown", { name, known: all.join(", ") });
    }
  }

  /** The value of `name`, or null when absent; a list-valued one's repeats joined by commas. */
  get(name: string): string | null {
    const values = this.all().getAll(name);
    if (values.length > 1) {
      if (LIST_VALUED.has(name)) return values.join(",");
      throw apiError("param.repeated", { name });
    }
    return values.length === 0 ? null : values[0];
  }

  /** A `true`/`false` flag; absent means false. */
  flag(name: string): boolean {
    const value = this.get(name);
    if (value === null || value === "false") return false;
    if (value === "true") return true;
    throw apiError("param.boolean", { name, value });
  }
}

/**
 * Decodes a path parameter. itty-router leaves them percent-encoded; a malformed escape is a
 * client mistake, reported as null so the caller can answer 404.
 */
export function decodeParam(value: string | undefined): string | null {
  if (value === undefined) return null;
  try {
    return decodeURIComponent(value);
  } catch {
    return null;
  }
}

const RECORD_ID = /^[1-9][0-9]{0,15}$/;

/** A record id from a path parameter, or null when it cannot name a record (not a positive safe integer). */
export function parseRecordId(value: string | undefined): number | null {
  const raw = decodeParam(value);
  if (raw === null || !RECORD_ID.test(raw)) return null;
  const id = Number(raw);
  return Number.isSafeInteger(id) ? id : null;
}
