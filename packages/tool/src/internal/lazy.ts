import type { z } from "zod";

// zod and Ajv take longer to load than the rest of the package together, and most programs never
// need them: well-formed questions and answers are checked without either. They are loaded the
// first time a schema is used: synchronously, through `require` (both ship CommonJS), because
// decoding is synchronous.

// `node:module` itself only on first use too: importing it as a module costs start-up time.
let required: ((specifier: string) => unknown) | undefined;
function load(specifier: string): unknown {
  required ??= process.getBuiltinModule("node:module").createRequire(import.meta.url);
  return required(specifier);
}

/** The zod namespace. */
export type Zod = typeof z;

let zodModule: Zod | undefined;

/** zod, loaded on first use. */
export function zod(): Zod {
  zodModule ??= (load("zod") as { z: Zod }).z;
  return zodModule;
}

/** A module of the package's dependencies, loaded on first use (Ajv and its formats). */
export function requireModule<T>(specifier: string): T {
  return load(specifier) as T;
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
