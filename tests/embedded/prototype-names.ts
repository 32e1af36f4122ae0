import assert from "node:assert/strict";
import { BSON } from "bson";

/**
 * The field names a plain JavaScript object already answers to, which MongoDB stores as fields
 * like any other, each with a stand-in of the same length that sorts the same way against the
 * other names the tests use ("a", "b", "_id"): the same operation run with the stand-ins must
 * give the same result, names swapped back.
 */
export const STAND_INS: ReadonlyMap<string, string> = new Map([
  ["__protx__", "__proto__"],
  ["constructox", "constructor"],
  ["prototypx", "prototype"],
  ["toStrinx", "toString"],
]);

/** Sets a field as a field, even `__proto__`. */
export function defineField(doc: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(doc, name, { value, writable: true, enumerable: true, configurable: true });
}

/** A document from entries (the last of a repeated name wins), `__proto__` included as a field. */
export function objectOf(entries: readonly (readonly [string, unknown])[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of entries) defineField(out, name, value);
  return out;
}

/** A dotted path or field reference (`$a.b`, `$$v.a`) with each stand-in component given its hazardous name. */
function renamedText(text: string): string {
  const prefix = /^\$*/.exec(text)![0];
  return prefix + text.slice(prefix.length).split(".").map((part) => STAND_INS.get(part) ?? part).join(".");
}

/** A value (a spec, documents, a result) with every stand-in name, in keys and strings, given its hazardous name. */
export function withHazardousNames<T>(value: T): T {
  if (typeof value === "string") return renamedText(value) as T;
  if (Array.isArray(value)) return value.map(withHazardousNames) as T;
  if (value === null || typeof value !== "object" || Object.getPrototypeOf(value) !== Object.prototype) return value;
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(value)) {
    defineField(out, renamedText(name), withHazardousNames((value as Record<string, unknown>)[name]));
  }
  return out as T;
}

const PROTOTYPES: readonly object[] = [Object.prototype, Array.prototype, Function.prototype];

/** What a prototype holds: each own property's descriptor. */
export type PrototypeState = Map<PropertyKey, PropertyDescriptor>[];

/** What `Object.prototype`, `Array.prototype` and `Function.prototype` hold now. */
export function prototypeState(): PrototypeState {
  return PROTOTYPES.map((proto) =>
    new Map(Reflect.ownKeys(proto).map((key) => [key, Object.getOwnPropertyDescriptor(proto, key)!]))
  );
}

function sameDescriptor(a: PropertyDescriptor | undefined, b: PropertyDescriptor): boolean {
  return a !== undefined && a.value === b.value && a.get === b.get && a.set === b.set &&
    a.writable === b.writable && a.enumerable === b.enumerable && a.configurable === b.configurable;
}

/** The properties that differ from `before`, put back as they were (so later tests run clean). */
function restore(before: PrototypeState): string[] {
  const changed: string[] = [];
  PROTOTYPES.forEach((proto, i) => {
    for (const key of Reflect.ownKeys(proto)) {
      const was = before[i].get(key);
      const now = Object.getOwnPropertyDescriptor(proto, key)!;
      if (sameDescriptor(was, now)) continue;
      changed.push(String(key));
      if (was === undefined) delete (proto as Record<PropertyKey, unknown>)[key];
      else Object.defineProperty(proto, key, was);
    }
  });
  return changed;
}

/** Asserts that no prototype changed since `before` (undoing any change first). */
export function assertPrototypesUntouched(before: PrototypeState, note: string): void {
  const changed = restore(before);
  assert.deepEqual(changed, [], `a prototype was written to: ${note}`);
}

/** Extended JSON of a value, field order and own `__proto__` fields included: what two results compare on. */
export function ejson(value: unknown): string {
  return BSON.EJSON.stringify(value as BSON.Document, { relaxed: false });
}

/**
 * Read options that keep a `__proto__` field's array an array: the driver deserialises with
 * `fieldsAsRaw: {}` by default, and the bson library's lookup `fieldsAsRaw[name]` finds
 * `Object.prototype` for `__proto__`, returning the array's elements as raw bytes.
 */
export const READ_OPTIONS = { fieldsAsRaw: Object.create(null) as Record<string, boolean> };
