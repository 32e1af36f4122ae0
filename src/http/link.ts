/** Parameters a cursor pins: a link to another page leaves them out, the cursor carries them. */
const PINNED = ["cursor", "page", "per_page", "q", "sort", "trashed"];

/** `url` (the request's, without the pinned parameters) pointing at `cursor`: the same URL object serves both links. */
function pageUrl(url: URL, cursor: string): string {
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
  if (next === null && prev === null) return undefined;
  // Parsed once for both links: setting `cursor` again replaces it where the first set put it.
  const url = new URL(requestUrl);
  for (const name of PINNED) url.searchParams.delete(name);
  const nextLink = next === null ? undefined : `<${pageUrl(url, next)}>; rel="next"`;
  const prevLink = prev === null ? undefined : `<${pageUrl(url, prev)}>; rel="prev"`;
  return nextLink === undefined ? prevLink : prevLink === undefined ? nextLink : `${nextLink}, ${prevLink}`;
}
