import { createResponse, type HeaderRecord } from "./fast-response.ts";

/** Headers every JSON response carries. */
export function jsonHeaders(language: string, extra?: HeaderRecord): HeaderRecord {
  return { "content-type": "application/json; charset=utf-8", "content-language": language, ...extra };
}

/** A JSON response in the project's shape. */
export function json(body: unknown, status: number, language: string, extra?: HeaderRecord): Response {
  return createResponse(JSON.stringify(body), status, jsonHeaders(language, extra));
}

/** A response with no body (204, 304). It still says which language the API speaks. */
export function empty(status: number, language: string, extra?: HeaderRecord): Response {
  return createResponse(null, status, { "content-language": language, ...extra });
}

/** The single-message error body `{ "error": message }`. */
export function errorResponse(message: string, status: number, language: string, extra?: HeaderRecord): Response {
  return json({ error: message }, status, language, extra);
}
