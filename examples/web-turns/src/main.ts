// npm run web-turns [-- <port>]: serves POST /turns and POST /turns/<name>/answers on 127.0.0.1.
import { join } from "node:path";
import { createTurnServer } from "./server.js";

const port = Number(process.argv[2] ?? 8787);
const server = createTurnServer(join(process.cwd(), ".jp/conversations"));
server.listen(port, "127.0.0.1", () => {
  console.log(`Listening on http://127.0.0.1:${port}`);
  console.log(
    `  curl -s -XPOST localhost:${port}/turns -H 'content-type: application/json' -d '{"message":"Set up my account"}'`,
  );
});
