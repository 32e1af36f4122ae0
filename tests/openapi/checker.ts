// deno-lint-ignore-file no-explicit-any -- an OpenAPI document is parsed JSON that the checker walks freely
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

// ajv-formats is CommonJS: its default export arrives as the function or wrapped in `default`.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => void;

/** An OpenAPI document as served, parsed. */
export type OpenApiDocument =
  & { paths: Record<string, Record<string, any>>; components: Record<string, any> }
  & Record<string, any>;

const DOCUMENT_ID = "https://mongorest.invalid/openapi.json";

function pointerEscape(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** The document's path template a concrete path matches, e.g. `/api/v1/users/7` → `/api/v1/users/{id}`. */
export function templateOf(doc: OpenApiDocument, pathname: string): string | undefined {
  const segments = pathname.split("/");
  return Object.keys(doc.paths).find((template) => {
    const parts = template.split("/");
    return parts.length === segments.length &&
      parts.every((part, i) => /^\{\w+\}$/.test(part) ? segments[i] !== "" : part === segments[i]);
  });
}

/**
 * Checks responses against the document with ajv (JSON Schema 2020-12, OpenAPI 3.1's dialect).
 * The whole document is added once under an id, and each response schema is compiled through a
 * JSON pointer into it, so its `#/components/...` references resolve as they do in the document.
 */
export class ResponseChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly compiled = new Map<string, (data: unknown) => boolean>();

  constructor(private readonly doc: OpenApiDocument) {
    addFormats(this.ajv);
    this.ajv.addSchema(doc, DOCUMENT_ID);
  }

  /**
   * The documented response key for a status (the exact code, else its `4XX` range), or
   * undefined. For a method the path does not serve (405), any operation of the path answers.
   */
  responseKey(method: string, template: string, status: number): { method: string; key: string } | undefined {
    const item = this.doc.paths[template];
    const methods = item[method] ? [method] : Object.keys(item);
    for (const candidate of methods) {
      for (const key of [String(status), `${String(status)[0]}XX`]) {
        if (item[candidate]?.responses?.[key]) return { method: candidate, key };
      }
    }
    return undefined;
  }

  /**
   * Problems with one response's headers: a documented `required` header missing, a documented
   * header whose value does not fit its schema (integers read from their text), or a header of
   * the rate limiter (RateLimit-*, Retry-After) the response has but the document does not list.
   */
  checkHeaders(method: string, pathname: string, status: number, headers: Headers): string[] {
    const template = templateOf(this.doc, pathname);
    const found = template && this.responseKey(method.toLowerCase(), template, status);
    if (!found) return [`${method} ${pathname} ${status} is not documented`];
    const documented: Record<string, any> = this.doc.paths[template][found.method].responses[found.key].headers ?? {};
    const names = new Map(Object.keys(documented).map((name) => [name.toLowerCase(), name]));
    const problems: string[] = [];
    for (const [lower, name] of names) {
      const value = headers.get(lower);
      if (value === null) {
        if (documented[name].required) problems.push(`${status} lacks required header ${name}`);
        continue;
      }
      const schema = documented[name].schema ?? {};
      const data = schema.type === "integer" && /^-?\d+$/.test(value) ? Number(value) : value;
      if (!this.ajv.validate(schema, data)) problems.push(`${status} header ${name}: ${this.ajv.errorsText()}`);
    }
    for (const [lower] of headers) {
      if (/^(ratelimit-|retry-after$)/.test(lower) && !names.has(lower)) {
        problems.push(`${status} has header ${lower}, which the document does not list`);
      }
    }
    return problems;
  }

  /** Problems with a body against one component schema (`ErrorBody`), or [] when it matches. */
  checkComponent(name: string, text: string): string[] {
    const validate = this.ajv.compile({ $ref: `${DOCUMENT_ID}#/components/schemas/${pointerEscape(name)}` });
    if (validate(JSON.parse(text))) return [];
    return [`${name}: ${this.ajv.errorsText((validate as unknown as { errors: never }).errors)}`];
  }

  /** Problems with one response, or [] when it matches what the document says. */
  check(method: string, pathname: string, status: number, contentType: string | null, text: string): string[] {
    const template = templateOf(this.doc, pathname);
    if (!template) return [`${pathname} is not in the document`];
    const found = this.responseKey(method.toLowerCase(), template, status);
    if (!found) return [`${method} ${template} ${status} is not documented`];
    const response = this.doc.paths[template][found.method].responses[found.key];
    if (!response.content) return text === "" ? [] : [`${status} should have no body, got ${text.slice(0, 100)}`];
    if (!contentType?.startsWith("application/json")) return [`expected JSON, got ${contentType}`];
    const pointer = ["paths", template, found.method, "responses", found.key, "content", "application/json", "schema"]
      .map(pointerEscape).join("/");
    const id = `${DOCUMENT_ID}#/${pointer}`;
    let validate = this.compiled.get(id);
    if (!validate) {
      validate = this.ajv.compile({ $ref: id });
      this.compiled.set(id, validate);
    }
    if (validate(JSON.parse(text))) return [];
    return [
      `${method} ${template} ${status}: ${this.ajv.errorsText((validate as unknown as { errors: never }).errors)}`,
    ];
  }
}
