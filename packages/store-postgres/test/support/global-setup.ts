import { rmSync } from "node:fs";
import type { TestProject } from "vitest/node";
import { createTemplate, postgresMissing } from "./postgres.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The initdb'd template directory, or "" when there is no server to test against. */
    pgTemplate: string;
  }
}

/** One initdb for the whole run; each test file copies it (much faster than its own initdb). */
export default async function setup(project: TestProject): Promise<() => void> {
  if (postgresMissing !== undefined) {
    console.warn(`@jp/store-postgres: PostgreSQL tests skipped: ${postgresMissing}`);
    project.provide("pgTemplate", "");
    return () => {};
  }
  const template = await createTemplate();
  project.provide("pgTemplate", template);
  return () => rmSync(template, { recursive: true, force: true });
}
