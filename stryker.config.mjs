// Mutation testing of one package against its own tests: `npm run mutate -- <package>`
// (scripts/mutate.mjs sets MUTATE_PACKAGE). A mutant that survives is a change to the
// package's code that none of its own tests notices.
const name = process.env.MUTATE_PACKAGE;
if (name === undefined || name === "") {
  throw new Error("MUTATE_PACKAGE is not set: run `npm run mutate -- <package>`, e.g. `tool`");
}
const dir = `packages/${name}`;

export default {
  testRunner: "vitest",
  plugins: ["@stryker-mutator/vitest-runner"],
  vitest: { configFile: "scripts/vitest.mutate.config.ts", dir, related: false },
  mutate: [`${dir}/src/**/*.ts`, `!${dir}/src/**/*.d.ts`],
  // Other mutation runs' sandboxes are not copied into this one.
  ignorePatterns: [
    "dist",
    "coverage",
    "reports",
    "bench",
    "examples",
    ".changeset",
    ".stryker-tmp*",
  ],
  coverageAnalysis: "perTest",
  // Mutants of top-level constants run every test and take most of the time; they are left out.
  ignoreStatic: true,
  reporters: ["clear-text", "progress-append-only", "json", "html"],
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  htmlReporter: { fileName: `reports/mutation/${name}.html` },
  concurrency: Number(process.env.MUTATE_CONCURRENCY ?? 2),
  timeoutMS: 30_000,
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
};
