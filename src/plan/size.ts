/**
 * About how many bytes `value` takes as JSON, without building the string: every string and key
 * at its length plus quotes and separators, a date as its ISO string, a number at most 24
 * characters. Escapes are not counted (a control character takes six), so it may fall short;
 * a response's body is measured exactly as it is written (query/budget.ts `boundedJson`).
 * @example jsonSizeEstimate({ id: 1, name: "Ada" }) // 45
 */
export function jsonSizeEstimate(value: unknown): number {
  switch (typeof value) {
    case "string":
      return value.length + 2;
    case "number":
      return 24;
    case "boolean":
      return 5;
    case "object":
      return value === null ? 4 : value instanceof Date ? 26 : compoundSize(value as object);
    default:
      return 4;
  }
}

function compoundSize(value: object): number {
  let size = 2;
  if (Array.isArray(value)) {
    for (const item of value) size += jsonSizeEstimate(item) + 1;
    return size;
  }
  for (const key in value) {
    if (Object.hasOwn(value, key)) size += key.length + 4 + jsonSizeEstimate((value as Record<string, unknown>)[key]);
  }
  return size;
}
