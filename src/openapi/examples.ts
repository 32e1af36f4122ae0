/**
 * Example responses for the docs page. Swagger UI makes up an example from the schema when the
 * document has none, and for records whose relations lead back to them (`User.posts` →
 * `PostRelated.user` → …) it gives up with `"posts": ["string"]`. A record as a plain GET
 * returns it (no relations: they come only with `with`) says what the API really sends.
 */
import type { AnyStruct, Model } from "../model/define.ts";
import { isoString, outputOrder } from "../model/serialize.ts";
import { requiredFields } from "../model/validate.ts";
import type { ResponseObject } from "./responses.ts";

const CREATED = new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678));

/** Candidate values by superstruct type, tried in order; the first the field's struct takes is its example. */
const CANDIDATES: Record<string, readonly unknown[]> = {
  string: ["Karl", "ada@example.com", "text", "a"],
  integer: [1, 0],
  number: [1.5, 1, 0],
  boolean: [true],
  date: [CREATED],
  array: [[]],
  object: [{}],
  type: [{}],
  record: [{}],
};

/** What the field's struct takes among the candidates, as JSON sends it; undefined when none fits. */
function sampleOf(struct: AnyStruct): unknown {
  const candidates = struct.type === "enums"
    ? Object.values(struct.schema as Record<string, unknown>)
    : struct.type === "literal"
    ? [struct.schema]
    : CANDIDATES[struct.type] ?? [];
  const fits = candidates.find((value) => !struct.validate(value, { coerce: true })[0]);
  return fits instanceof Date ? isoString(fits) : fits;
}

/** A record of the model as a plain GET returns it, or undefined when a required field has no sample. */
export function exampleRecord(model: Model): Record<string, unknown> | undefined {
  const record: Record<string, unknown> = {};
  const required = requiredFields(model);
  for (const field of outputOrder(model)) {
    if (field === "id") record.id = 1;
    else if (field === "created_at" || field === "updated_at") record[field] = isoString(CREATED);
    else if (field === "deleted_at") record[field] = null;
    else {
      const sample = sampleOf(model.fields[field]);
      if (sample === undefined && required.has(field)) return undefined;
      record[field] = sample ?? null;
    }
  }
  return record;
}

/** A component's `examples`, for the schema of the model's records (none when no example fits). */
export function recordExample(model: Model): { examples?: unknown[] } {
  if (model.serialize !== undefined) return {};
  const record = exampleRecord(model);
  return record === undefined ? {} : { examples: [record] };
}

function pageExample(model: Model, record: Record<string, unknown>): Record<string, unknown> {
  const pagination = {
    total: 1,
    lastPage: 1,
    perPage: model.perPage,
    currentPage: 1,
    from: 0,
    to: model.perPage,
    count: "exact",
    next: null,
    prev: null,
  };
  return { data: [record], pagination };
}

/** The operation's success responses (200, 201) with an example body, when the model's records have one. */
export function withExamples(responses: Record<string, ResponseObject>, model: Model): Record<string, ResponseObject> {
  const record = model.serialize === undefined ? exampleRecord(model) : undefined;
  if (record === undefined) return responses;
  for (const status of ["200", "201"]) {
    const response = responses[status] as { content?: Record<string, { schema: { $ref?: string } }> } | undefined;
    const media = response?.content?.["application/json"];
    if (!media) continue;
    const example = media.schema.$ref?.endsWith("Page") ? pageExample(model, record) : record;
    responses[status] = { ...response, content: { "application/json": { ...media, example } } };
  }
  return responses;
}
