import type pg from "pg";
import { afterAll, beforeAll, describe, inject } from "vitest";
import { migrate } from "../../src/index.js";
import { postgresMissing, startServer, type TestServer } from "./postgres.js";

/** What a test body gets: the file's server and a migrated pool on it. */
export interface PostgresContext {
  readonly server: TestServer;
  readonly pool: pg.Pool;
}

/**
 * `describe` against a real PostgreSQL server of its own (a copy of the run's template), migrated;
 * with `logStatements`, the server logs every statement and its parameters.
 * Without server binaries the block is skipped and says why in its name, so every report shows it.
 */
export function describeWithPostgres(
  name: string,
  body: (ctx: () => PostgresContext) => void,
  options: { readonly logStatements?: boolean } = {},
) {
  if (postgresMissing !== undefined) {
    describe.skip(`${name} [skipped: ${postgresMissing}]`, () => body(() => undefined as never));
    return;
  }
  describe(name, () => {
    let ctx: PostgresContext | undefined;
    beforeAll(async () => {
      const server = await startServer(inject("pgTemplate"), {
        logStatements: options.logStatements ?? false,
      });
      const pool = server.pool({ max: 20 });
      (await migrate(pool))._unsafeUnwrap();
      ctx = { server, pool };
    });
    afterAll(async () => {
      await ctx?.server.stop();
    });
    body(() => {
      if (ctx === undefined) throw new Error("the PostgreSQL server did not start");
      return ctx;
    });
  });
}
