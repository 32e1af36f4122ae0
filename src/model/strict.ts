/**
 * Refuses keys a definition does not know. Options ported from elsewhere (Axe's `limits`,
 * `rateLimit`, `handlers: { all: true }`, a relation's `primaryKey`) would otherwise do nothing
 * and say nothing; a typo would silently switch nothing off.
 * @example checkKeys("Model User", { name: "User", rateLimit: r }, ["name", "fields"])
 *   // TypeError: Model User: unknown key "rateLimit"; allowed keys: name, fields
 */
export function checkKeys(where: string, value: object, allowed: readonly string[]): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      throw new TypeError(`${where}: unknown key "${key}"; allowed keys: ${allowed.join(", ")}`);
    }
  }
}

/** A plain object (not null, not an array): what every definition must be. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
