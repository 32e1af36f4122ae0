import { etagOf } from "../http/etag.ts";
import { createResponse } from "../http/fast-response.ts";
import { cachedJson, empty, errorResponse } from "../http/responses.ts";
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

/** Answers one of the docs routes, or undefined when the path is none of them. */
export type DocsRoutes = (request: Request, pathname: string) => Promise<Response> | undefined;

type Page = (request: Request) => Response | Promise<Response>;

const ALLOW = "GET, HEAD, OPTIONS";

function text(body: string, contentType: string, language: string): Page {
  return () =>
    createResponse(body, 200, {
      "content-type": contentType,
      "content-language": language,
      "cache-control": "no-cache",
    });
}

function asset(name: string, language: string): Page {
  return async () => {
    const { body, contentType } = await swaggerAsset(name);
    return createResponse(body, 200, {
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
 * files come from node_modules through the app. GET and HEAD only; OPTIONS lists them, and any
 * other method is a 405.
 */
export function docsRoutes(settings: DocsSettings): DocsRoutes {
  const routes = pages(settings);
  return (request, pathname) => {
    const page = routes.get(pathname);
    if (!page) return undefined;
    if (request.method === "GET") return Promise.resolve(page(request));
    if (request.method === "OPTIONS") return Promise.resolve(empty(204, settings.language, { allow: ALLOW }));
    const message = `The ${request.method} method is not allowed here; allowed: ${ALLOW}.`;
    return Promise.resolve(errorResponse(message, 405, settings.language, { allow: ALLOW }));
  };
}
