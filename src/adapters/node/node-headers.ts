import { chainToReal } from "./node-lazy.ts";

// A header name as Fetch accepts it (RFC 9110 token).
const TOKEN = /^[!#$%&'*+\-.^`|~\w]+$/;

/**
 * Request headers read straight from node's raw header list. Building a real Headers costs a
 * few microseconds per request (each name and value is validated and copied), while handlers
 * mostly call get() or has() for a header or two; those scan the raw list. Anything else
 * (iterating, changing) builds the real Headers once and works on it from then on.
 */
class NodeHeaders {
  readonly #raw: string[];
  #real: Headers | undefined;

  constructor(raw: string[]) {
    this.#raw = raw;
  }

  get(name: string): string | null {
    if (this.#real !== undefined) return this.#real.get(name);
    const wanted = lowerName(name);
    const raw = this.#raw;
    let value: string | null = null;
    for (let i = 0; i < raw.length; i += 2) {
      const candidate = raw[i]!;
      if (candidate.length === wanted.length && candidate.toLowerCase() === wanted) {
        // Repeated headers read as one, joined as Fetch joins them.
        value = value === null ? raw[i + 1]! : `${value}, ${raw[i + 1]!}`;
      }
    }
    return value;
  }

  has(name: string): boolean {
    if (this.#real !== undefined) return this.#real.has(name);
    const wanted = lowerName(name);
    const raw = this.#raw;
    for (let i = 0; i < raw.length; i += 2) {
      const candidate = raw[i]!;
      if (candidate.length === wanted.length && candidate.toLowerCase() === wanted) return true;
    }
    return false;
  }

  #materialise(): Headers {
    if (this.#real === undefined) {
      const headers = new Headers();
      const raw = this.#raw;
      for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
      this.#real = headers;
    }
    return this.#real;
  }

  static {
    chainToReal(NodeHeaders, Headers, new Headers(), (self: NodeHeaders) => self.#materialise());
  }
}

// Names already checked and lower-cased: handlers ask for the same few names on every request.
const checkedNames = new Map<string, string>();
const CHECKED_NAMES_KEPT = 256;

/** The name lower-cased, or the TypeError a real Headers throws for an invalid one. */
function lowerName(name: string): string {
  const known = checkedNames.get(name);
  if (known !== undefined) return known;
  const text = String(name);
  if (!TOKEN.test(text)) throw new TypeError(`Invalid header name: "${text}"`);
  const lower = text.toLowerCase();
  if (typeof name === "string" && name.length <= 64) {
    if (checkedNames.size >= CHECKED_NAMES_KEPT) checkedNames.clear();
    checkedNames.set(name, lower);
  }
  return lower;
}

/** Headers over node's flat [name, value, name, value...] list, which must not change after. */
export function createNodeHeaders(raw: string[]): Headers {
  return new NodeHeaders(raw) as unknown as Headers;
}
