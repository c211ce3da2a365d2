// `npm run bench`: prints medians measured in this run. No timing is asserted anywhere in the
// test suite; figures are recorded in docs/performance.md.

import { builtinsBench } from "./builtins.bench.js";
import { conversationBench } from "./conversation.bench.js";
import { coordinatorBench } from "./coordinator.bench.js";
import { durableBench } from "./durable.bench.js";

console.log(`node ${process.version}, ${new Date().toISOString()}`);
console.log(conversationBench().join("\n"));
console.log((await coordinatorBench()).join("\n"));
console.log((await builtinsBench()).join("\n"));
console.log((await durableBench()).join("\n"));
