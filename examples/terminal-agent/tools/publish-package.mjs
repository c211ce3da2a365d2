#!/usr/bin/env node
// A local tool in JP's protocol: it reads its JSON context on stdin and prints one Outcome.
// It "publishes" nothing: it shows how a tool asks a yes/no question whose answer may be
// remembered for the rest of the turn (the prompt offers Y and N for that), and how it asks for a
// secret (a one-time password), which the coordinator gets from the human without echo and
// records as redacted. A wrong password makes it ask again, which the record shows as the
// question's next attempt.
let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  input += chunk;
});
process.stdin.on("end", () => {
  const { tool } = JSON.parse(input);
  const { name, version } = tool.arguments;
  const { tag, otp } = tool.answers;
  if (typeof tag !== "boolean") {
    // A tool's yes/no question is reused for the turn unless it says otherwise: the person may
    // answer it once for every publish of this turn.
    const question = {
      id: "tag",
      text: `Also push the git tag v${version}?`,
      context: "Y or N answers for the rest of this turn: another publish will not ask again.",
      answer_type: { type: "boolean" },
      default: true,
      persistence: "turn",
    };
    process.stdout.write(JSON.stringify({ type: "needs_input", question }));
    return;
  }
  if (typeof otp === "string" && /^\d{6}$/.test(otp)) {
    const tagged = tag ? ` Pushed the tag v${version}.` : "";
    process.stdout.write(
      JSON.stringify({ type: "success", content: `Published ${name}@${version}.${tagged}` }),
    );
    return;
  }
  const context =
    otp === undefined
      ? "The registry asks for a second factor. (Demo: any 6 digits work.)"
      : "That was not 6 digits. Try again, or press Ctrl+C to give up.";
  const question = {
    id: "otp",
    text: `One-time password to publish ${name}@${version}`,
    context,
    answer_type: { type: "secret" },
  };
  process.stdout.write(JSON.stringify({ type: "needs_input", question }));
});
