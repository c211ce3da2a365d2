import { readdirSync, readFileSync } from "node:fs";
import { extname } from "node:path";
import { fileURLToPath } from "node:url";

// This file sits at the root of src/ on purpose: the package is bundled into dist/index.js, so
// `./page/` resolves to src/page/ when run from source and to dist/page/ once built.
const PAGE_DIR = new URL("./page/", import.meta.url);

/** The content type of each kind of file the page is made of; other files are not served. */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
};

/** One file of the page, ready to send. */
export interface PageFile {
  readonly contentType: string;
  readonly body: Buffer;
}

let files: ReadonlyMap<string, PageFile> | undefined;

/** The page's files by name (`index.html`, `app.js`, …), read once from the package. */
export function pageFiles(): ReadonlyMap<string, PageFile> {
  files ??= readPageFiles();
  return files;
}

function readPageFiles(): ReadonlyMap<string, PageFile> {
  const map = new Map<string, PageFile>();
  for (const name of readdirSync(fileURLToPath(PAGE_DIR))) {
    const contentType = CONTENT_TYPES[extname(name)];
    if (contentType === undefined || name.endsWith(".d.ts")) continue;
    map.set(name, { contentType, body: readFileSync(new URL(name, PAGE_DIR)) });
  }
  if (!map.has("index.html")) {
    throw new Error(`@jp/prompt-web: the page is missing from ${fileURLToPath(PAGE_DIR)}`);
  }
  return map;
}
