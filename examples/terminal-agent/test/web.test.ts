// End-to-end: `npm run demo -- --web` as a child process, answered in Debian's Chromium through
// the link it prints, the way a person would.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Page } from "playwright-core";
import { afterEach, describe, expect, it } from "vitest";
import { REPO_ROOT } from "./tmux.js";
import { filesUnder, inquiry, readWritten, searchableText, toolResult } from "./written.js";

const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const NO_BROWSER = existsSync(CHROMIUM_PATH)
  ? undefined
  : `no Chromium at ${CHROMIUM_PATH} (install Debian's package: apt-get install -y chromium)`;
if (NO_BROWSER !== undefined) console.warn(`skipping the --web demo test: ${NO_BROWSER}`);

const OTP = "604217";
const LINK = /http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]+/;

let child: ChildProcess | undefined;
let out: string | undefined;
afterEach(() => {
  child?.kill("SIGKILL");
  if (out !== undefined) rmSync(out, { recursive: true, force: true });
});

/** Starts the demo with `--web`; resolves with the link it printed and what it prints later. */
async function startDemo(dir: string) {
  const demo = spawn(
    process.execPath,
    [
      "--conditions=@jp/source",
      "--import",
      "tsx",
      "examples/terminal-agent/src/main.ts",
      "--web",
      "--out",
      dir,
    ],
    { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] },
  );
  child = demo;
  const output = { stdout: "", stderr: "" };
  demo.stdout.on("data", (chunk: Buffer) => {
    output.stdout += chunk.toString("utf8");
  });
  demo.stderr.on("data", (chunk: Buffer) => {
    output.stderr += chunk.toString("utf8");
  });
  const exited = new Promise<number | null>((resolve) => demo.once("exit", resolve));
  const deadline = Date.now() + 30_000;
  while (!LINK.test(output.stderr)) {
    if (Date.now() > deadline) throw new Error(`no link printed; stderr:\n${output.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { link: LINK.exec(output.stderr)?.[0] ?? "", output, exited };
}

/** Answers each prompt the page shows, as it comes, until the demo exits. */
async function answerEverything(page: Page, exited: Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  let done = false;
  void exited.then(() => {
    done = true;
  });
  const heading = page.locator("article.prompt h3");
  while (!done) {
    const text = await heading
      .first()
      .textContent({ timeout: 500 })
      .catch(() => undefined);
    if (text === undefined || text === null || text === seen.at(-1)) continue;
    seen.push(text);
    if (text.startsWith("Which version bump")) {
      await page.getByRole("radio", { name: "major" }).check();
      await page.getByRole("button", { name: "Answer" }).click();
    } else if (text.startsWith("Add a changelog entry")) {
      await page.getByRole("button", { name: /^Yes/ }).click();
    } else if (text.startsWith("The changelog entry")) {
      await page.getByLabel("Your answer").fill("Faster widget rendering");
      await page.getByRole("button", { name: "Answer" }).click();
    } else if (text.startsWith("Run local tool publish_package")) {
      await page.getByRole("button", { name: "Run", exact: true }).click();
    } else if (text.startsWith("Also push the git tag")) {
      await page.getByRole("button", { name: /^Yes/ }).click();
    } else if (text.startsWith("One-time password")) {
      const field = page.getByLabel("Your answer (hidden)");
      expect(await field.getAttribute("type")).toBe("password");
      await field.fill(OTP);
      await field.press("Enter");
    } else if ((await page.getByRole("button", { name: "Answer" }).count()) > 0) {
      // Any other question: its default (or nothing chosen) is a fine answer.
      await page.getByRole("button", { name: "Answer" }).click();
    } else if ((await page.getByRole("button", { name: /^Yes/ }).count()) > 0) {
      await page.getByRole("button", { name: /^Yes/ }).click();
    } else {
      throw new Error(`the demo asked something this test cannot answer: ${text}`);
    }
  }
  return seen;
}

describe.skipIf(NO_BROWSER !== undefined)(
  `npm run demo -- --web, answered in Chromium${NO_BROWSER === undefined ? "" : ` [skipped: ${NO_BROWSER}]`}`,
  () => {
    it("prints the link, waits for the page, and records the answers given there", async () => {
      out = mkdtempSync(join(tmpdir(), "jp-demo-web-"));
      const { link, output, exited } = await startDemo(out);
      expect(output.stderr).toContain("Open this link in a browser to answer the prompts:");
      // It waits for the person: nothing is asked, refused or written before the page opens.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(child?.exitCode).toBeNull();
      expect(output.stderr).not.toContain("The prompt page is open.");

      const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true });
      try {
        const page = await browser.newPage();
        page.setDefaultTimeout(15_000);
        await page.goto(link);
        const seen = await answerEverything(page, exited);
        const asked = (text: string) => seen.indexOf(text);
        expect(asked("Which version bump is this release?")).toBe(0);
        expect(asked("Add a changelog entry?")).toBeGreaterThan(0);
        expect(asked("The changelog entry, one line")).toBeGreaterThan(
          asked("Add a changelog entry?"),
        );
        expect(asked("Run local tool publish_package?")).toBeGreaterThan(
          asked("The changelog entry, one line"),
        );
        expect(seen.at(-1)).toMatch(/^One-time password to publish widgets@2\.0\.0/);
      } finally {
        await browser.close();
      }
      expect(await exited).toBe(0);
      expect(output.stderr).toContain("The prompt page is open.");
      expect(output.stdout).toContain("Conversation written to ");
      expect(output.stdout + output.stderr).not.toContain(OTP);

      const written = readWritten(out);
      const answers = { bump: "major", changelog: true, entry: "Faster widget rendering" };
      for (const [id, answer] of Object.entries(answers)) {
        expect(inquiry(written, `call_form.${id}.1`).response).toMatchObject({
          outcome: "answered",
          answer,
        });
      }
      expect(inquiry(written, "call_publish.otp.1").response.outcome).toBe("redacted");
      expect(toolResult(written, "call_publish").content).toContain("Published widgets@2.0.0.");
      for (const file of filesUnder(out)) {
        expect(searchableText(file), `${file} holds the OTP`).not.toContain(OTP);
      }
    });
  },
);
