import { Router } from "itty-router";
import { withHead } from "./head.ts";

/** One route to register: `path` in itty-router's syntax (`/users/:id`). */
export interface RouteDefinition<T> {
  method: string;
  path: string;
  /** What a match hands back, e.g. a handler with its route. */
  target: T;
  /** False for a handler the model switched off: its path then answers that method with 404. */
  enabled: boolean;
}

/** A matched route: its target and its raw (still percent-encoded) path parameters (frozen: matches are shared). */
export interface RouteMatch<T> {
  target: T;
  params: Readonly<Record<string, string>>;
}

/** Matches method and path to a registered target; knows nothing of what targets are. */
export interface PathRouter<T> {
  /** The first route whose method and pattern match, or undefined. */
  match(method: string, pathname: string): RouteMatch<T> | undefined;
  /**
   * For a request no route matched: the methods the path does answer (for a 405), or null
   * when it is a 404: an unknown path, or a handler the model switched off.
   */
  allowedFor(method: string, pathname: string): string[] | null;
}

/** Path patterns (`:param` segments as `*`) → methods served, and "METHOD pattern" of switched-off handlers. */
class MethodTable {
  private readonly allowed = new Map<string, Set<string>>();
  private readonly disabled = new Set<string>();

  add(pattern: string, method: string): void {
    this.allowed.set(pattern, withHead((this.allowed.get(pattern) ?? new Set(["OPTIONS"])).add(method)));
  }

  disable(pattern: string, method: string): void {
    this.disabled.add(`${method} ${pattern}`);
  }

  lookup(method: string, pathname: string): string[] | null {
    const segments = pathname.split("/");
    for (const pattern of this.allowed.keys()) {
      if (!matches(pattern, segments)) continue;
      return this.disabled.has(`${method} ${pattern}`) ? null : [...this.allowed.get(pattern)!];
    }
    return null;
  }
}

function matches(pattern: string, segments: readonly string[]): boolean {
  const parts = pattern.split("/");
  return parts.length === segments.length && parts.every((part, i) => part === "*" || part === segments[i]);
}

/**
 * The path of `request.url`. That is always a serialised absolute URL (what `new URL(url).href`
 * prints), whose path runs from the first "/" after the authority to the query or fragment;
 * taking it by position saves parsing the whole URL on every request.
 * @example pathnameOf("http://localhost:3000/api/v1/users?page=2") // "/api/v1/users"
 */
export function pathnameOf(url: string): string {
  // The app and its service layer both ask, and a busy client asks for the same URL again and
  // again: the last answer is kept, and handing back the same string keeps its hash for the
  // Map and Set lookups that follow.
  if (url === lastUrl) return lastPathname;
  const pathname = pathnameAt(url);
  lastUrl = url;
  lastPathname = pathname;
  return pathname;
}

let lastUrl = "";
let lastPathname = "";

function pathnameAt(url: string): string {
  const authority = url.indexOf("//");
  const start = authority === -1 ? -1 : url.indexOf("/", authority + 2);
  if (start === -1) return new URL(url).pathname;
  const query = url.indexOf("?", start);
  const fragment = url.indexOf("#", start);
  const end = query === -1 ? fragment : fragment === -1 ? query : Math.min(query, fragment);
  return end === -1 ? url.slice(start) : url.slice(start, end);
}

/**
 * The path without trailing slashes (a lone "/" stays). A loop, not `replace(/(.)\/+$/)`:
 * that regex retries its slash run from every position and took quadratic time on a path of
 * thousands of slashes followed by anything else.
 * @example withoutTrailingSlashes("/api/v1/users//") // "/api/v1/users"
 */
export function withoutTrailingSlashes(pathname: string): string {
  let end = pathname.length;
  while (end > 1 && pathname.charCodeAt(end - 1) === 47 /* "/" */) end--;
  return pathname.slice(0, end);
}

interface Compiled<T> {
  method: string;
  pattern: RegExp;
  target: T;
}

/**
 * Compiles the routes once at start-up, in order. itty-router compiles the path patterns (its
 * syntax and matching rules: `:param` is one non-empty segment, left percent-encoded; trailing
 * slashes match); matching is the first route whose method and pattern fit, as itty-router's
 * `fetch` picks it, without parsing the whole URL and the query string on every request.
 */
export function buildRouter<T>(definitions: readonly RouteDefinition<T>[]): PathRouter<T> {
  const compiler = Router();
  const compiled: Compiled<T>[] = [];
  const table = new MethodTable();
  for (const { method, path, target, enabled } of definitions) {
    const pattern = path.replace(/:\w+/g, "*");
    if (!enabled) {
      table.disable(pattern, method);
      continue;
    }
    compiler.all(path, () => undefined);
    compiled.push({ method, pattern: compiler.routes[compiler.routes.length - 1]![1], target });
    table.add(pattern, method);
  }
  const match = (method: string, pathname: string): RouteMatch<T> | undefined => {
    for (const route of compiled) {
      if (route.method !== method) continue;
      const found = route.pattern.exec(pathname);
      if (found !== null) return { target: route.target, params: Object.freeze(found.groups ?? {}) };
    }
    return undefined;
  };
  return {
    match: memoisedMatch(match),
    allowedFor: (method, pathname) => table.lookup(method, withoutTrailingSlashes(pathname)),
  };
}

/** Distinct method and path pairs whose match is kept, and the longest path kept (bounds the memory to ~256 KiB). */
const MATCHES_KEPT = 1024;
const LONGEST_KEPT = 256;

/**
 * `match` answering a method and path seen before from memory. Matching tries each route's
 * pattern in turn (a dozen regular expressions for a small app before the list's), about 3 µs
 * of a cached request's CPU on Node; clients ask for the same few paths again and again. A
 * match depends on nothing else, and its params are frozen, so every request shares them.
 */
function memoisedMatch<T>(
  match: (method: string, pathname: string) => RouteMatch<T> | undefined,
): (method: string, pathname: string) => RouteMatch<T> | undefined {
  const kept = new Map<string, RouteMatch<T> | null>();
  // The last pair asked for, checked before the map: no key to build for a repeated request.
  let lastMethod = "";
  let lastPathname = "";
  let lastFound: RouteMatch<T> | undefined;
  return (method, pathname) => {
    if (pathname === lastPathname && method === lastMethod) return lastFound;
    if (pathname.length > LONGEST_KEPT) return match(method, pathname);
    const key = `${method} ${pathname}`;
    let found = kept.get(key);
    if (found === undefined) {
      found = match(method, pathname) ?? null;
      if (kept.size >= MATCHES_KEPT) kept.clear();
      kept.set(key, found);
    }
    lastMethod = method;
    lastPathname = pathname;
    lastFound = found ?? undefined;
    return lastFound;
  };
}
