// Names no node: module: it works on whatever Request and Headers the runtime has.

/**
 * Makes instances of `lazy` pass for instances of `base` (a web class such as Request or
 * Headers): `lazy.prototype` chains to `base.prototype`, so `instanceof` holds, and every
 * member of `base.prototype` that `lazy` does not serve itself is answered by the real object
 * that `materialise` builds (once) for an instance.
 *
 * `sample` is any real instance of `base`. The runtime's own code (`new Request(request)`,
 * `fetch(request)`, `new Headers(headers)`) reads internal slots that live under symbol keys
 * on each instance; those are read and written through to the real object as well, so a lazy
 * instance passes through such code too.
 */
export function chainToReal<T>(
  lazy: { prototype: T },
  base: { prototype: object },
  sample: object,
  materialise: (self: T) => object,
): void {
  const prototype = lazy.prototype as object;
  Object.setPrototypeOf(prototype, base.prototype);
  const own = new Set<string | symbol>(Reflect.ownKeys(prototype));
  for (const key of Reflect.ownKeys(base.prototype)) {
    if (own.has(key) || key === "constructor" || key === Symbol.toStringTag) continue;
    const descriptor = Object.getOwnPropertyDescriptor(base.prototype, key)!;
    Object.defineProperty(prototype, key, forwarded(key, descriptor, materialise));
  }
  for (const key of Object.getOwnPropertySymbols(sample)) {
    if (!own.has(key)) Object.defineProperty(prototype, key, slot(key, materialise));
  }
}

/** A prototype member answered by the real object: a method, or a getter (and setter). */
function forwarded<T>(
  key: string | symbol,
  descriptor: PropertyDescriptor,
  materialise: (self: T) => object,
): PropertyDescriptor {
  if (typeof descriptor.value === "function") {
    const method = descriptor.value as (...args: unknown[]) => unknown;
    return {
      configurable: true,
      writable: true,
      value(this: T, ...args: unknown[]) {
        return method.apply(materialise(this), args);
      },
    };
  }
  return slot(key, materialise);
}

/** A property of the real object, read and written through. */
function slot<T>(key: string | symbol, materialise: (self: T) => object): PropertyDescriptor {
  return {
    configurable: true,
    get(this: T) {
      return Reflect.get(materialise(this), key);
    },
    set(this: T, value: unknown) {
      Reflect.set(materialise(this), key, value);
    },
  };
}
