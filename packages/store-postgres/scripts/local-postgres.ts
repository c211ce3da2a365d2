// `npm run db -w @jp/store-postgres`: a throwaway PostgreSQL for trying the store, from Debian's
// server binaries (apt-get install postgresql), in a temporary directory on a free port of
// 127.0.0.1. Prints DATABASE_URL and the demo command against it; Ctrl-C stops the server and
// removes the directory.
import { rmSync } from "node:fs";
import { createTemplate, postgresMissing, startServer } from "../test/support/postgres.js";

if (postgresMissing !== undefined) {
  console.error(postgresMissing);
  process.exit(1);
}
const template = await createTemplate();
const server = await startServer(template, { logStatements: false });
console.log(`DATABASE_URL=${server.url}`);
console.log(
  "PostgreSQL is running; Ctrl-C stops it and removes its data. Try the demo against it:",
);
console.log(`  npm run demo -- --postgres ${server.url} --suspend`);
const stop = async () => {
  await server.stop();
  rmSync(template, { recursive: true, force: true });
  process.exit(0);
};
process.once("SIGINT", () => void stop());
process.once("SIGTERM", () => void stop());
setInterval(() => {}, 1 << 30);
