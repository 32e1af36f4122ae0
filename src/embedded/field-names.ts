/**
 * Field names a client chooses that JavaScript objects already answer to. MongoDB stores
 * `{"__proto__": 1}` or `{constructor: {prototype: {x: 1}}}` as fields like any other; in
 * JavaScript, `obj.__proto__ = v` sets the object's prototype instead of a field, and
 * `obj.constructor.prototype` on a document without such a field is `Object.prototype`, so
 * code walking a client's path through a plain object could read `Object.prototype`'s members
 * as fields or write into `Object.prototype` itself (every object of the process then has the
 * field). These are the helpers that keep such names fields:
 *
 * - reads see a field only when the document owns it ({@link ownField});
 * - writes of `__proto__` define the field rather than set the prototype ({@link setField});
 * - copies keep it ({@link copyValue}: mingo's cloneDeep assigns, and so dropped it);
 * - decoded documents that hold such a name anywhere are marked ({@link markHazardous}), so
 *   the code that hands documents to mingo knows which to rename first.
 *
 * mingo walks paths and builds objects with plain property access throughout, and refuses
 * `__proto__` in a path outright, so documents and specs it is given spell these names with
 * a suffix no client name can hold ({@link aliasName}: a NUL, which BSON field names cannot
 * contain), and what it returns is spelled back ({@link unaliasValue}). query/aliases.ts does
 * that at each place the engine calls mingo.
 */

/**
 * The names to treat with care: every own property of `Object.prototype` (`__proto__`,
 * `constructor`, `toString`, `hasOwnProperty`...), which every plain object answers to, and
 * `prototype`, which `constructor` leads to. Computed once, when the engine loads.
 */
const HAZARDOUS: ReadonlySet<string> = new Set([
  ...Object.getOwnPropertyNames(Object.prototype),
  "__proto__",
  "constructor",
  "prototype",
]);

/** True for a name a plain JavaScript object already answers to (see {@link HAZARDOUS}). */
export function isHazardousName(name: string): boolean {
  return HAZARDOUS.has(name);
}

/** What follows a hazardous name in the spelling handed to mingo: BSON names cannot hold a NUL. */
const ALIAS_SUFFIX = "\u0000";

/** Counts every name spelled for mingo, so a caller can tell whether some work produced one. */
export const aliasCounter = { minted: 0 };

/** The spelling of a field name handed to mingo: hazardous names get {@link ALIAS_SUFFIX}. */
export function aliasName(name: string): string {
  if (!HAZARDOUS.has(name)) return name;
  aliasCounter.minted++;
  return name + ALIAS_SUFFIX;
}

/** The client's spelling of a name {@link aliasName} may have spelled for mingo. */
export function unaliasName(name: string): string {
  return name.endsWith(ALIAS_SUFFIX) && HAZARDOUS.has(name.slice(0, -1)) ? name.slice(0, -1) : name;
}

/** Whether a name is spelled for mingo (see {@link aliasName}). */
function isAliasedName(name: string): boolean {
  return name.endsWith(ALIAS_SUFFIX) && HAZARDOUS.has(name.slice(0, -1));
}

const ALIASED_TEXT = new RegExp(`([A-Za-z_]+)${ALIAS_SUFFIX}`, "g");

/**
 * Text (an error message) with names spelled for mingo given back their client spelling:
 * "Cannot create field 'x' in element {constructor\0: 1}" reads as the client wrote it.
 */
export function unaliasText(text: string): string {
  if (!text.includes(ALIAS_SUFFIX)) return text;
  return text.replace(ALIASED_TEXT, (whole, name: string) => HAZARDOUS.has(name) ? name : whole);
}

/** A plain object (a document), as opposed to an array, a bson value, a Date... */
function isDocument(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * A lookup table by a client's name (a type alias, a POSIX class...) that answers only its own
 * entries: a plain object literal would answer `constructor` or `toString` with
 * `Object.prototype`'s functions.
 */
export function nameTable<T>(entries: Record<string, T>): Readonly<Record<string, T>> {
  return Object.freeze(Object.assign(Object.create(null) as Record<string, T>, entries));
}

/** The value of field `name` of a document, or undefined when the document does not own one. */
export function ownField(doc: Record<string, unknown>, name: string): unknown {
  return HAZARDOUS.has(name) && !Object.hasOwn(doc, name) ? undefined : doc[name];
}

/** Sets field `name` of a document, as a field even when it is `__proto__`. */
export function setField(doc: Record<string, unknown>, name: string, value: unknown): void {
  if (name === "__proto__") {
    Object.defineProperty(doc, name, { value, writable: true, enumerable: true, configurable: true });
  } else doc[name] = value;
}

/**
 * `doc` with `value` at a dotted path, sharing the rest: a missing or non-document step
 * becomes a document, as MongoDB's setNestedField makes one. Fields are set as fields.
 */
export function withValueAt(
  doc: Record<string, unknown>,
  path: readonly string[],
  value: unknown,
  from = 0,
): Record<string, unknown> {
  const out = { ...doc };
  const name = path[from];
  if (from === path.length - 1) setField(out, name, value);
  else {
    const inner = ownField(doc, name);
    setField(out, name, withValueAt(isDocument(inner) ? inner : {}, path, value, from + 1));
  }
  return out;
}

/** Documents (top-level) known to hold a hazardous field name somewhere, marked where they are decoded or built. */
const MARKED = new WeakSet<object>();

/** Marks a document as holding a hazardous name at some depth; returns it. */
export function markHazardous<T extends object>(doc: T): T {
  MARKED.add(doc);
  return doc;
}

/** Whether {@link markHazardous} marked this document. */
export function isMarkedHazardous(doc: unknown): boolean {
  return typeof doc === "object" && doc !== null && MARKED.has(doc);
}

/** Whether a value holds a hazardous field name at any depth (a walk: for documents of unknown origin). */
export function holdsHazardousName(value: unknown, depth = 0): boolean {
  if (depth > MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    for (const element of value) if (holdsHazardousName(element, depth + 1)) return true;
    return false;
  }
  if (!isDocument(value)) return false;
  for (const name of Object.keys(value)) {
    if (HAZARDOUS.has(name) || holdsHazardousName(value[name], depth + 1)) return true;
  }
  return false;
}

/** Marks a document of unknown origin (a command's, a computed one) when it holds a hazardous name; returns it. */
export function markIfHazardous<T>(doc: T): T {
  if (typeof doc === "object" && doc !== null && !MARKED.has(doc) && holdsHazardousName(doc)) MARKED.add(doc);
  return doc;
}

/**
 * A deep copy of a value, as mingo's cloneDeep makes one (documents and arrays copied, Dates
 * and RegExps renewed, bson values shared), that keeps a `__proto__` field a field, and the
 * mark of a document marked by {@link markHazardous}.
 */
export function copyValue<T>(value: T): T {
  const copy = copied(value);
  if (copy !== value && MARKED.has(value as object)) MARKED.add(copy as object);
  return copy;
}

/**
 * How deep the walks here go: deeper than any document can be stored (BSON nesting stops at
 * 180 levels, refused with code 15), so what lies beyond is left as it is, and refused when
 * it is written.
 */
const MAX_DEPTH = 200;

/**
 * A deep copy (see {@link copyValue}). A value a pipeline made to hold itself (`$$ROOT` set
 * into the document being built) is refused as mingo's cloneDeep refuses it.
 */
function copied<T>(value: T, ancestors: object[] = [], depth = 0): T {
  if (depth > MAX_DEPTH) return value;
  if (value instanceof Date) return new Date(value) as T;
  if (value instanceof RegExp) return new RegExp(value) as T;
  if (!Array.isArray(value) && !isDocument(value)) return value;
  if (ancestors.includes(value)) throw new Error("mingo: cycle detected while processing object/array");
  ancestors.push(value);
  let out: unknown;
  if (Array.isArray(value)) out = value.map((element) => copied(element, ancestors, depth + 1));
  else {
    const copy: Record<string, unknown> = {};
    for (const name of Object.keys(value)) setField(copy, name, copied(value[name], ancestors, depth + 1));
    out = copy;
  }
  ancestors.pop();
  return out as T;
}

/**
 * A value with every hazardous field name spelled for mingo ({@link aliasName}), at any depth:
 * a copy when it holds one, else the value itself.
 */
export function aliasValue<T>(value: T): T {
  return renamed(value, aliasedKey) as T;
}

/**
 * A value with every name {@link aliasValue} spelled for mingo given back its client spelling
 * (a `__proto__` field defined as a field). Marked when it holds one, so later stages know.
 */
export function unaliasValue<T>(value: T): T {
  const out = renamed(value, unaliasedKey);
  if (out !== value && typeof out === "object" && out !== null) MARKED.add(out);
  return out as T;
}

function aliasedKey(name: string): string | undefined {
  return HAZARDOUS.has(name) ? aliasName(name) : undefined;
}

function unaliasedKey(name: string): string | undefined {
  return isAliasedName(name) ? name.slice(0, -1) : undefined;
}

/**
 * `value` with keys renamed by `rename` (undefined: kept): a copy when some key is renamed,
 * else the value itself. A value shared at several places, or holding itself (a pipeline
 * can build one), is copied once, so the copy has the same shape.
 */
function renamed(value: unknown, rename: (name: string) => string | undefined): unknown {
  if (!isContainer(value) || !holdsRenamed(value, rename, new Set())) return value;
  return rebuilt(value, rename, new Map());
}

function isContainer(value: unknown): value is unknown[] | Record<string, unknown> {
  return Array.isArray(value) || isDocument(value);
}

function holdsRenamed(value: unknown, rename: (name: string) => string | undefined, seen: Set<object>): boolean {
  if (!isContainer(value) || seen.has(value)) return false;
  seen.add(value);
  if (Array.isArray(value)) return value.some((element) => holdsRenamed(element, rename, seen));
  for (const name of Object.keys(value)) {
    if (rename(name) !== undefined || holdsRenamed(value[name], rename, seen)) return true;
  }
  return false;
}

function rebuilt(value: unknown, rename: (name: string) => string | undefined, done: Map<object, unknown>): unknown {
  if (!isContainer(value)) return value;
  const known = done.get(value);
  if (known !== undefined) return known;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    done.set(value, out);
    for (let i = 0; i < value.length; i++) out[i] = rebuilt(value[i], rename, done);
    return out;
  }
  const out: Record<string, unknown> = {};
  done.set(value, out);
  for (const name of Object.keys(value)) setField(out, rename(name) ?? name, rebuilt(value[name], rename, done));
  return out;
}
