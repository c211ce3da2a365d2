// biome-ignore-all assist/source/organizeImports: the imports the docs show stay in their region
import { createEvent, FileConversationStore as Store } from "@jp/conversation";

// A conversation saved earlier, with a turn cut off by a crash (a tool call with no result).
const earlier = new Store(".jp/conversations").create({ title: "RFD summaries" });
earlier.stream.startTurn("Why does the summary change on every run?");
earlier.stream.append(
  createEvent("tool_call_request", { id: "call_1", name: "grep", arguments: {} }),
);
(await new Store(".jp/conversations").save(earlier))._unsafeUnwrap();
const name = earlier.name;

// #region example
import { FileConversationStore, toMarkdown } from "@jp/conversation";

const store = new FileConversationStore(".jp/conversations");
const loaded = await store.load(name); // a directory name, e.g. "17727484633-preventing-rfd-summary-…"
if (loaded.isErr()) throw new Error(loaded.error.message); // kind: "not-found" | "corrupt" | "io" | …

const { stream } = loaded.value;
const report = stream.sanitize(); // repairs an interrupted turn; report lists every change
console.log(toMarkdown(stream));
const saved = await store.save(loaded.value); // atomic writes, same layout as read
if (saved.isErr() && saved.error.kind === "conflict") {
  // Someone saved this conversation since it was loaded: nothing was written.
  // Load it again, apply the change again, save again.
}
// #endregion
console.log(`repaired: ${report.inserted.length} inserted; saved: ${saved.isOk()}`);
