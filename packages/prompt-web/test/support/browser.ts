import { existsSync } from "node:fs";
import { type Browser, chromium, type Locator, type Page } from "playwright-core";
import { afterAll, beforeAll, describe } from "vitest";
import type { StandaloneWebPrompts } from "../../src/index.js";

/** Debian's Chromium; the tests never download a browser. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Why the browser tests cannot run here, or `undefined` when they can. */
export const browserMissing = existsSync(CHROMIUM_PATH)
  ? undefined
  : `no Chromium at ${CHROMIUM_PATH} (install Debian's package: apt-get install -y chromium)`;

/**
 * `describe` for tests in a real browser: one Chromium for the whole file. Without a browser the
 * block is skipped and says why in its name, so the reason shows in every report.
 */
export function describeInBrowser(name: string, body: (browser: () => Browser) => void): void {
  if (browserMissing !== undefined) {
    console.warn(`skipping "${name}": ${browserMissing}`);
    describe.skip(`${name} [skipped: ${browserMissing}]`, () => body(() => undefined as never));
    return;
  }
  describe(name, () => {
    let browser: Browser | undefined;
    beforeAll(async () => {
      browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true });
    });
    afterAll(async () => {
      await browser?.close();
    });
    body(() => {
      if (browser === undefined) throw new Error("the browser did not start");
      return browser;
    });
  });
}

/** Opens the prompt page and waits until it is connected to the server. */
export async function openPage(
  browser: Browser,
  web: StandaloneWebPrompts,
  options: { readonly width?: number } = {},
): Promise<Page> {
  const before = web.pagesConnected;
  const page = await browser.newPage({
    viewport: { width: options.width ?? 900, height: 900 },
  });
  // Fail on a missing element well before the test's own timeout, naming what was awaited.
  page.setDefaultTimeout(8000);
  page.on("pageerror", (error) => {
    throw error;
  });
  await page.goto(web.url);
  await waitUntil(() => web.pagesConnected > before, "the page to connect");
  return page;
}

/** Polls `condition` every 10 ms until it holds; fails after `timeoutMs` naming `what`. */
export async function waitUntil(
  condition: () => boolean,
  what: string,
  timeoutMs = 5000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Whether `locator`'s element has the keyboard focus. */
export function isFocused(locator: Locator): Promise<boolean> {
  // Page code reaches the DOM through the element: this program is checked with Node's globals.
  return locator.evaluate((el) => el === el.ownerDocument.activeElement);
}

/** The text of the error shown beside `field` (through its aria-describedby). */
export async function errorFor(field: Locator): Promise<string> {
  return field.evaluate((el) => {
    const ids: string[] = (el.getAttribute("aria-describedby") ?? "").split(" ");
    for (const id of ids) {
      const node = el.ownerDocument.getElementById(id);
      if (node?.classList.contains("field-error")) return node.hidden ? "" : node.textContent;
    }
    return "";
  });
}
