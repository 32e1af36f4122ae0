import { etagOf } from "../http/etag.ts";
import { type Reply, reply } from "../http/reply.ts";
import { cachedJson } from "../http/responses.ts";
import { SWAGGER_FILES, swaggerAsset } from "./assets.ts";
import { docsHtml, docsInitScript } from "./page.ts";

/** Where the docs page lives; its assets are below it. */
export const DOCS_PATH = "/docs";

/** What the docs routes serve. */
export interface DocsSettings {
  /** The API's base path; the document is served at `<basePath>/openapi.json`. */
  basePath: string;
  /** The OpenAPI document, built once at start-up. */
  document: { info?: { title?: string } } & Record<string, unknown>;
  language: string;
}

/**
 * Answers a GET of one of the docs routes; for another method on one of them, the methods it
 * allows (the app answers OPTIONS and 405 as for its other routes); undefined when the path
 * is none of them.
 */
export type DocsRoutes = (request: Request, pathname: string) => Promise<Reply> | { allow: string[] } | undefined;

type Page = (request: Request) => Reply | Promise<Reply>;

const ALLOWED = { allow: ["GET", "HEAD", "OPTIONS"] };

function text(body: string, contentType: string, language: string): Page {
  return () =>
    reply(body, 200, {
      "content-type": contentType,
      "content-language": language,
      "cache-control": "no-cache",
    });
}

function asset(name: string, language: string): Page {
  return async () => {
    const { body, contentType } = await swaggerAsset(name);
    return reply(body, 200, {
      "content-type": contentType,
      "content-language": language,
      "cache-control": "public, max-age=3600",
    });
  };
}

function pages(settings: DocsSettings): Map<string, Page> {
  const { basePath, document, language } = settings;
  const documentUrl = `${basePath}/openapi.json`;
  const json = JSON.stringify(document);
  const etag = etagOf(json);
  const title = document.info?.title ?? "API";
  const html = text(docsHtml(DOCS_PATH, title), "text/html; charset=utf-8", language);
  const routes = new Map<string, Page>([
    [documentUrl, (request) => cachedJson(request, json, etag, language)],
    [DOCS_PATH, html],
    [`${DOCS_PATH}/`, html],
    [`${DOCS_PATH}/docs-init.js`, text(docsInitScript(documentUrl), "text/javascript; charset=utf-8", language)],
  ]);
  for (const name of Object.keys(SWAGGER_FILES)) routes.set(`${DOCS_PATH}/${name}`, asset(name, language));
  return routes;
}

/**
 * The OpenAPI document at `<basePath>/openapi.json` and the Swagger UI page at `/docs`, whose
 * files come from node_modules through the app. GET and HEAD only.
 */
export function docsRoutes(settings: DocsSettings): DocsRoutes {
  const routes = pages(settings);
  return (request, pathname) => {
    const page = routes.get(pathname);
    if (!page) return undefined;
    return request.method === "GET" ? Promise.resolve(page(request)) : ALLOWED;
  };
}
