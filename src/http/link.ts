/** Parameters a cursor pins: a link to another page leaves them out, the cursor carries them. */
const PINNED = ["cursor", "page", "per_page", "q", "sort", "trashed"];

function pageUrl(requestUrl: string, cursor: string): string {
  const url = new URL(requestUrl);
  for (const name of PINNED) url.searchParams.delete(name);
  url.searchParams.set("cursor", cursor);
  return url.href;
}

/**
 * An RFC 8288 `Link` header value pointing at the next and previous pages: the request's own
 * URL with the cursor in place of the parameters it pins (`fields`, `with`, `count` stay).
 * Undefined when there is neither.
 * @example linkHeader("http://h/api/v1/users?page=2", "abc", null) // '<http://h/api/v1/users?cursor=abc>; rel="next"'
 */
export function linkHeader(requestUrl: string, next: string | null, prev: string | null): string | undefined {
  const links: string[] = [];
  if (next !== null) links.push(`<${pageUrl(requestUrl, next)}>; rel="next"`);
  if (prev !== null) links.push(`<${pageUrl(requestUrl, prev)}>; rel="prev"`);
  return links.length > 0 ? links.join(", ") : undefined;
}
