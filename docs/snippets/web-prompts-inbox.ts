// biome-ignore-all assist/source/organizeImports: the imports the docs show stay in their region
// Type-checked, not run: it serves HTTP until it is closed (packages/prompt-web's tests run the
// inbox with a file store and with PostgreSQL).

// #region inbox
import { FileConversationStore } from "@jp/conversation";
import { createWebPrompts, fileInboxSource } from "@jp/prompt-web";

const store = new FileConversationStore(".jp/conversations");
const web = (await createWebPrompts({ inbox: fileInboxSource(store) }))._unsafeUnwrap();
// or, with @jp/store-postgres: { inbox: postgresInboxSource(new PostgresInbox(pool)) }
console.log(`Answer waiting turns at ${web.url}`);
// #endregion
