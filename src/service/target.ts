import type { HandlerName, Model } from "../model/define.ts";

/** The model and handler a request addresses, for per-model limits. */
export interface RequestTarget {
  model: string;
  handler: HandlerName;
}

const ONE_RECORD: Record<string, HandlerName> = {
  GET: "show",
  HEAD: "show",
  PUT: "update",
  PATCH: "patch",
  DELETE: "delete",
};
const COLLECTION: Record<string, HandlerName> = { GET: "paginate", HEAD: "paginate", POST: "insert" };

/**
 * Works out from the path alone which model and handler a request is for, mirroring the
 * generated routes: `/<plural>`, `/<plural>/<id>`, `/<plural>/<id>/force` and the nested
 * `/<parent>/<id>/<child plural>`. Undefined for anything else (a 404 or 405 to be).
 */
export function targetResolver(
  basePath: string,
  models: Iterable<Model>,
): (method: string, pathname: string) => RequestTarget | undefined {
  const byRoute = new Map<string, string>();
  for (const model of models) byRoute.set(model.route, model.name);
  const prefix = basePath.replace(/\/+$/, "") + "/";
  return (method, pathname) => {
    if (!pathname.startsWith(prefix)) return undefined;
    const segments = pathname.slice(prefix.length).replace(/\/+$/, "").split("/");
    const [first, , third] = segments;
    if (segments.length === 3 && third === "force" && method === "DELETE") return named(byRoute.get(first!), "delete");
    if (segments.length === 3) return named(byRoute.get(third!), COLLECTION[method]);
    if (segments.length === 2) return named(byRoute.get(first!), ONE_RECORD[method]);
    if (segments.length === 1) return named(byRoute.get(first!), COLLECTION[method]);
    return undefined;
  };
}

function named(model: string | undefined, handler: HandlerName | undefined): RequestTarget | undefined {
  return model === undefined || handler === undefined ? undefined : { model, handler };
}
