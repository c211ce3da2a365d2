// `npm run bench`: prints medians measured in this run. No timing is asserted anywhere in the
// test suite; figures are recorded in docs/performance.md.
import { conversationBench } from "./conversation.bench.js";

const sections = [conversationBench];
console.log(`node ${process.version}, ${new Date().toISOString()}`);
for (const section of sections) console.log(section().join("\n"));
