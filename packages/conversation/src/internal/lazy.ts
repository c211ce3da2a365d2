import type { z } from "zod";

// zod takes longer to load than the rest of the package together, and most programs never need
// it: events already in canonical shape (what JP and this SDK write) decode without it. It is
// loaded the first time a schema is needed: synchronously, through `require` (zod ships
// CommonJS), because decoding is synchronous.

/** The zod namespace. */
export type Zod = typeof z;

let zodModule: Zod | undefined;

/** zod, loaded on first use. */
export function zod(): Zod {
  // `node:module` itself only now: importing it as a module at start-up costs milliseconds.
  zodModule ??= (
    process.getBuiltinModule("node:module").createRequire(import.meta.url)("zod") as { z: Zod }
  ).z;
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
