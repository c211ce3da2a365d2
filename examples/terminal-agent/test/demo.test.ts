// End-to-end: the demo (`npm run demo`) in a real terminal under tmux. Each test answers the
// prompts with keys, checks what the user sees, then what was written under `--out`.
import { describe, expect, it } from "vitest";
import { HAS_TMUX, NEEDS_TMUX, type TmuxScreen, tmuxScreens } from "./tmux.js";
import {
  filesUnder,
  inquiry,
  inquiryIds,
  readWritten,
  searchableText,
  toolResult,
  type Written,
} from "./written.js";

const OTP = "482913";
const ASSISTANT = { source: "assistant" };

// What each prompt shows once it is ready for keys.
const BUMP = "? Which version bump is this release?";
const CHANGELOG = "? Add a changelog entry? [y,n,b,r,s]";
const ENTRY_MENU = /\? The changelog entry, one line\n❯ a Answer/;
const SECTIONS = "? Which changelog sections does it go under?";
const PERMISSION = "? Run local tool publish_package? [y,Y,n,N,r,e,p]";
// A tool's yes/no question: Y and N answer and remember the answer for the turn.
const TAG = /\? Also push the git tag v[\d.]+\? \[y,Y,n,N\]/;
const OTP_PROMPT = /\? One-time password to publish widgets@[\d.]+/;
const WRITTEN = "Conversation written to ";

/** Waits for the end, checks a clean exit, and returns the whole screen. */
async function finished(screen: TmuxScreen): Promise<string> {
  await screen.waitFor(WRITTEN);
  expect(await screen.waitForExit()).toBe(0);
  return screen.capture({ history: true });
}

/** Every tool call was answered, each once. */
function expectEveryCallAnswered(written: Written) {
  const ids = (type: string) =>
    written.events.filter((event) => event.type === type).map((event) => event.id);
  expect(ids("tool_call_response").sort()).toEqual(ids("tool_call_request").sort());
}

/** Every inquiry request has exactly one response. */
function expectInquiriesClosed(written: Written) {
  const responses = written.events
    .filter((event) => event.type === "inquiry_response")
    .map((event) => event.id);
  expect(responses).toEqual(inquiryIds(written));
}

describe.skipIf(!HAS_TMUX).sequential(`terminal-agent demo in tmux${NEEDS_TMUX}`, () => {
  const tmux = tmuxScreens();

  it("happy path: answers the form, runs the tool, keeps the OTP off the screen and disk", async () => {
    const { screen, out } = await tmux.demo();
    await screen.waitFor(BUMP);
    await screen.waitFor("❯ 2 minor (default)");
    await screen.press("3");
    await screen.waitFor("✔ Which version bump is this release? major");
    await screen.waitFor(CHANGELOG);
    await screen.press("y");
    await screen.waitFor(ENTRY_MENU);
    await screen.press("a");
    await screen.waitFor("? Answer:");
    await screen.type("Faster widget rendering");
    await screen.press("Enter");
    // A multi_select: two sections toggled by their numbers, Enter submits both.
    await screen.waitFor(SECTIONS);
    await screen.waitFor("❯ ◯ 1 Added");
    await screen.press("1");
    await screen.waitFor("❯ ◉ 1 Added");
    await screen.press("3");
    await screen.waitFor("◉ 3 Fixed");
    await screen.press("Enter");
    await screen.waitFor(
      'Publishing widgets 2.0.0 with the entry "Faster widget rendering" under Added, Fixed.',
    );
    await screen.waitFor(PERMISSION);
    await screen.press("y");
    // The tool's own yes/no question offers to remember the answer for the turn.
    const tag = await screen.waitFor(TAG);
    expect(tag).toContain("Y or N answers for the rest of this turn");
    await screen.press("Y");
    await screen.waitFor(OTP_PROMPT);
    await screen.type(OTP);
    await screen.press("Enter");

    const text = await finished(screen);
    expect(text).toContain("✔ Add a changelog entry? yes");
    expect(text).toContain("✔ Answer: Faster widget rendering");
    expect(text).toContain("✔ Which changelog sections does it go under? Added, Fixed");
    expect(text).toContain("✔ Run local tool publish_package? run");
    expect(text).toContain("✔ Also push the git tag v2.0.0? yes + remember for turn");
    expect(text).toContain(
      "Assistant (scripted): Done. Published widgets@2.0.0. Pushed the tag v2.0.0.",
    );
    expect(text).toContain("--- Transcript ---");
    expect(text).toContain("    Answer: <redacted>");
    expect(text).not.toContain(OTP);

    const written = readWritten(out);
    expect(written.files).toEqual(["base_config.json", "events.json", "metadata.json"]);
    const answers = {
      bump: "major",
      changelog: true,
      entry: "Faster widget rendering",
      sections: ["Added", "Fixed"],
    };
    for (const [id, answer] of Object.entries(answers)) {
      const { request, response } = inquiry(written, `call_form.${id}.1`);
      expect(request.source).toEqual(ASSISTANT);
      expect(response).toMatchObject({ outcome: "answered", answer });
    }
    const otp = inquiry(written, "call_publish.otp.1");
    expect(otp.request.source).toEqual({ source: "tool", name: "publish_package" });
    expect(otp.request.question).toMatchObject({ answer_type: { type: "secret" } });
    expect(otp.response.outcome).toBe("redacted");
    expect(otp.response).not.toHaveProperty("answer");
    // The yes/no question is the tool's, answered (JP's default persistence, `turn`, is not written).
    const tagged = inquiry(written, "call_publish.tag.1");
    expect(tagged.request.source).toEqual({ source: "tool", name: "publish_package" });
    expect(tagged.request.question).toMatchObject({ answer_type: { type: "boolean" } });
    expect(tagged.response).toMatchObject({ outcome: "answered", answer: true });
    expect(JSON.parse(toolResult(written, "call_form").content)).toEqual(answers);
    expect(toolResult(written, "call_publish")).toEqual({
      content: "Published widgets@2.0.0. Pushed the tag v2.0.0.",
      is_error: false,
    });
    expectEveryCallAnswered(written);
    expectInquiriesClosed(written);

    const files = filesUnder(out);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      expect(searchableText(file), `${file} holds the OTP`).not.toContain(OTP);
    }
  });

  it("Back from [3/4] re-asks the boolean pre-filled; no skips the text and multi_select questions", async () => {
    const { screen, out } = await tmux.demo();
    await screen.waitFor(BUMP);
    await screen.press("2");
    await screen.waitFor(CHANGELOG);
    await screen.press("y");
    await screen.waitFor(ENTRY_MENU);
    await screen.press("b");
    // The boolean again, [2/3], with the earlier answer (yes) as what Enter takes.
    const again = await screen.waitFor(CHANGELOG);
    expect(again).toContain("✔ The changelog entry, one line Back");
    expect(again.split("Assistant [2/4]").length - 1).toBe(2);
    expect(again.slice(again.lastIndexOf(CHANGELOG))).toContain("y yes (default)");
    await screen.press("n");
    await screen.waitFor("Assistant (scripted): Publishing widgets 1.3.0.");
    await screen.waitFor(PERMISSION);
    await screen.press("y");
    await screen.waitFor(TAG);
    await screen.press("n");
    await screen.waitFor(OTP_PROMPT);
    await screen.type(OTP);
    await screen.press("Enter");

    const text = await finished(screen);
    expect(text).toContain("✔ Add a changelog entry? no");
    expect(text).toContain("✔ Also push the git tag v1.3.0? no");
    expect(text).toContain("Done. Published widgets@1.3.0.");
    expect(text).not.toContain("Pushed the tag");
    // The text question was not asked a second time, and the sections not at all.
    expect(text.split("The changelog entry, one line").length - 1).toBe(2); // prompt + transcript
    expect(text).not.toContain("Which changelog sections");

    const written = readWritten(out);
    expect(inquiryIds(written)).toEqual([
      "call_form.bump.1",
      "call_form.changelog.1",
      "call_form.entry.1",
      "call_form.changelog.2",
      "call_publish.tag.1",
      "call_publish.otp.1",
    ]);
    expect(inquiry(written, "call_form.changelog.1").response).toMatchObject({
      outcome: "answered",
      answer: true,
    });
    // Back is recorded on the prompt where b was pressed.
    expect(inquiry(written, "call_form.entry.1").response).toMatchObject({
      outcome: "cancelled",
      reason: "back",
    });
    expect(inquiry(written, "call_form.changelog.2").response).toMatchObject({
      outcome: "answered",
      answer: false,
    });
    expect(JSON.parse(toolResult(written, "call_form").content)).toEqual({
      bump: "minor",
      changelog: false,
      entry: null,
      sections: null,
    });
    expectEveryCallAnswered(written);
    expectInquiriesClosed(written);
  });

  // Above, the earlier answer (yes) is also the question's default; here it is not.
  it("Back from [2/4] re-asks the select with the earlier answer pre-selected", async () => {
    const { screen, out } = await tmux.demo();
    await screen.waitFor(BUMP);
    await screen.press("3");
    await screen.waitFor(CHANGELOG);
    await screen.press("b");
    await screen.waitFor("❯ 3 major (default)");
    const again = await screen.capture();
    expect(again).toContain("  2 minor\n❯ 3 major (default)");
    await screen.press("Enter");
    await screen.waitFor(CHANGELOG);
    await screen.press("s");

    const text = await finished(screen);
    expect(text.split("✔ Which version bump is this release? major").length - 1).toBe(2);
    expect(text).toContain("(You ended the turn.)");

    const written = readWritten(out);
    expect(inquiryIds(written)).toEqual([
      "call_form.bump.1",
      "call_form.changelog.1",
      "call_form.bump.2",
      "call_form.changelog.2",
    ]);
    expect(inquiry(written, "call_form.changelog.1").response).toMatchObject({
      outcome: "cancelled",
      reason: "back",
    });
    expect(inquiry(written, "call_form.bump.2").response).toMatchObject({
      outcome: "answered",
      answer: "major",
    });
    expect(inquiry(written, "call_form.changelog.2").response).toMatchObject({
      outcome: "cancelled",
      reason: "end_turn",
    });
    expectEveryCallAnswered(written);
    expectInquiriesClosed(written);
  });

  it("Reply at [2/4] leaves the form with a message; nothing is published", async () => {
    const { screen, out } = await tmux.demo();
    await screen.waitFor(BUMP);
    await screen.press("1");
    await screen.waitFor(CHANGELOG);
    await screen.press("r");
    await screen.waitFor("? Reply to the assistant (optional):");
    await screen.type("Not today, QA is still running");
    await screen.press("Enter");

    const text = await finished(screen);
    expect(text).toContain("✔ Reply to the assistant (optional): Not today, QA is still running");
    expect(text).toContain(
      'Assistant (scripted): Understood: I did not publish anything. You said: "Not today, QA is still running"',
    );
    expect(text).toContain("    Cancelled (reply)");
    // The transcript shows the message, not only events.json.
    const transcript = text.slice(text.indexOf("--- Transcript ---"));
    expect(transcript).toContain(
      "    Cancelled (reply)\nYou (reply): Not today, QA is still running",
    );
    expect(text).not.toContain("Run local tool");

    const written = readWritten(out);
    expect(inquiry(written, "call_form.bump.1").response).toMatchObject({ answer: "patch" });
    expect(inquiry(written, "call_form.changelog.1").response).toMatchObject({
      outcome: "cancelled",
      reason: "reply",
    });
    expect(JSON.parse(toolResult(written, "call_form").content)).toEqual({
      cancelled: true,
      answered: { bump: "patch" },
      message: "Not today, QA is still running",
    });
    expect(inquiryIds(written)).toEqual(["call_form.bump.1", "call_form.changelog.1"]);
    expectEveryCallAnswered(written);
    expectInquiriesClosed(written);
  });

  it("End Turn at [1/4] ends the turn and closes every call", async () => {
    const { screen, out } = await tmux.demo();
    await screen.waitFor(BUMP);
    await screen.press("s");

    const text = await finished(screen);
    expect(text).toContain("(You ended the turn.)");
    expect(text).toContain("    Cancelled (end_turn)");

    const written = readWritten(out);
    expect(inquiry(written, "call_form.bump.1").response).toMatchObject({
      outcome: "cancelled",
      reason: "end_turn",
    });
    expect(toolResult(written, "call_form")).toEqual({
      content: "The user ended the turn.",
      is_error: false,
    });
    expect(written.events.filter((event) => event.type === "tool_call_request")).toHaveLength(1);
    expectEveryCallAnswered(written);
    expectInquiriesClosed(written);
  });

  it("Ctrl+C at [1/4] cancels the question; the demo still finishes cleanly", async () => {
    const { screen, out } = await tmux.demo();
    await screen.waitFor(BUMP);
    await screen.press("C-c");

    const text = await finished(screen);
    expect(text).toContain("Assistant (scripted): Understood: I did not publish anything.");
    expect(text).toContain("--- Transcript ---");
    expect(text).toContain("    Cancelled (user)");

    const written = readWritten(out);
    expect(inquiry(written, "call_form.bump.1").response).toMatchObject({
      outcome: "cancelled",
      reason: "user",
    });
    expect(toolResult(written, "call_form")).toEqual({
      content: "Tool input cancelled by user.",
      is_error: false,
    });
    expectEveryCallAnswered(written);
    expectInquiriesClosed(written);
  });

  it("a wrong one-time password is asked again as the next attempt, both redacted", async () => {
    const { screen, out } = await tmux.demo();
    await screen.waitFor(BUMP);
    await screen.press("1");
    await screen.waitFor(CHANGELOG);
    await screen.press("n");
    await screen.waitFor(PERMISSION);
    await screen.press("y");
    await screen.waitFor(TAG);
    await screen.press("y");
    await screen.waitFor(OTP_PROMPT);
    await screen.type("12");
    await screen.press("Enter");
    // The context of the second attempt, then its prompt, ready for input.
    await screen.waitFor(
      /That was not 6 digits\. Try again, or press Ctrl\+C to give up\.\n\? One-time password/,
    );
    await screen.type(OTP);
    await screen.press("Enter");

    const text = await finished(screen);
    expect(text).toContain("Done. Published widgets@1.2.4. Pushed the tag v1.2.4.");
    expect(text).not.toContain(OTP);

    const written = readWritten(out);
    // The tag question is asked once: its answer stays with the call across the OTP's attempts.
    expect(inquiryIds(written)).toEqual([
      "call_form.bump.1",
      "call_form.changelog.1",
      "call_publish.tag.1",
      "call_publish.otp.1",
      "call_publish.otp.2",
    ]);
    for (const id of ["call_publish.otp.1", "call_publish.otp.2"]) {
      expect(inquiry(written, id).response).toEqual(
        expect.objectContaining({ outcome: "redacted" }),
      );
    }
    for (const file of filesUnder(out)) {
      expect(searchableText(file), `${file} holds an OTP`).not.toContain(OTP);
    }
    expectInquiriesClosed(written);
  });

  it("Ctrl+C at the one-time password cancels it; the assistant does not say Done", async () => {
    const { screen, out } = await tmux.demo();
    await screen.waitFor(BUMP);
    await screen.press("1");
    await screen.waitFor(CHANGELOG);
    await screen.press("n");
    await screen.waitFor(PERMISSION);
    await screen.press("y");
    await screen.waitFor(TAG);
    await screen.press("Enter"); // the default: yes
    await screen.waitFor(OTP_PROMPT);
    await screen.press("C-c");

    const text = await finished(screen);
    expect(text).toContain(
      "Assistant (scripted): Nothing was published: Tool input cancelled by user.",
    );
    expect(text).not.toContain("Done.");
    const written = readWritten(out);
    expect(inquiry(written, "call_publish.otp.1").response).toMatchObject({
      outcome: "cancelled",
      reason: "user",
    });
    expectEveryCallAnswered(written);
  });

  it("n at the permission prompt skips the tool; no OTP is asked", async () => {
    const { screen, out } = await tmux.demo();
    await screen.waitFor(BUMP);
    await screen.press("1");
    await screen.waitFor(CHANGELOG);
    await screen.press("n");
    await screen.waitFor("Assistant (scripted): Publishing widgets 1.2.4.");
    await screen.waitFor(PERMISSION);
    await screen.press("n");

    const text = await finished(screen);
    expect(text).toContain("✔ Run local tool publish_package? skip");
    expect(text).toContain("  ← Tool skipped by user.");
    expect(text).toContain("Assistant (scripted): Nothing was published: Tool skipped by user.");
    expect(text).not.toContain("Done.");
    expect(text).not.toContain("One-time password");
    expect(text).not.toContain("Also push the git tag");

    const written = readWritten(out);
    expect(toolResult(written, "call_publish")).toEqual({
      content: "Tool skipped by user.",
      is_error: false,
    });
    expect(inquiryIds(written)).toEqual(["call_form.bump.1", "call_form.changelog.1"]);
    expectEveryCallAnswered(written);
    expectInquiriesClosed(written);
  });

  it("--non-interactive shows no prompt and records the refusal", async () => {
    const { screen, out } = await tmux.demo(["--non-interactive"]);

    const text = await finished(screen);
    const prompts = [
      "Assistant [1/4]",
      "❯ 2 minor",
      "↑↓ move",
      "[y,Y,n,N,r,e,p]",
      "One-time password",
    ];
    for (const prompt of prompts) {
      expect(text).not.toContain(prompt);
    }
    expect(text).toContain("    Cancelled (no_prompt_backend)");
    expect(text).toContain(
      "I could not ask you, so I will try a patch release without a changelog entry.",
    );
    expect(text).toContain(
      // A terminal is there; the run is non-interactive, and the model is told so.
      "  ← error: publish_package cannot run because the run is non-interactive, so no user can answer.",
    );

    const written = readWritten(out);
    expect(inquiry(written, "call_form.bump.1").response).toMatchObject({
      outcome: "cancelled",
      reason: "no_prompt_backend",
    });
    expect(toolResult(written, "call_form")).toMatchObject({ is_error: true });
    expect(toolResult(written, "call_publish")).toMatchObject({ is_error: true });
    expectEveryCallAnswered(written);
    expectInquiriesClosed(written);
  });
});
