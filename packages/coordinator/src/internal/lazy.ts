import { createRequire } from "node:module";
import type { z } from "zod";

// zod takes longer to load than the rest of the package together, and a run whose configuration
// and questions are well-formed never needs it. It is loaded the first time a schema is needed:
// synchronously, through `require` (zod ships CommonJS), because parsing is synchronous.

/** The zod namespace. */
export type Zod = typeof z;

let zodModule: Zod | undefined;

/** zod, loaded on first use. */
export function zod(): Zod {
  zodModule ??= (createRequire(import.meta.url)("zod") as { z: Zod }).z;
  return zodModule;
}

/** A value built once, the first time it is needed. */
export function lazy<T>(build: () => T): () => T {
  let value: T | undefined;
  let built = false;
  return () => {
    if (!built) {
      value = build();
      built = true;
    }
    return value as T;
  };
}

/**
 * A stand-in for a zod schema the package exports, building the schema (and loading zod) the first
 * time anything is read from it: `schema.safeParse(…)`, `schema.optional()` and embedding it in
 * another schema all work as on the schema itself, and `z.infer<typeof schema>` is its type.
 */
// Only reads are forwarded: zod's schemas carry non-configurable properties, which a proxy may
// not report as its own, so `Object.keys(schema)` is empty on the stand-in.
export function lazySchema<T extends object>(build: () => T): T {
  const schema = lazy(build);
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(schema(), key),
    has: (_, key) => Reflect.has(schema(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(schema()),
  });
}
