#!/usr/bin/env node
// A local tool in JP's protocol: it reads its JSON context on stdin and prints one Outcome.
// It "publishes" nothing: it only shows how a tool asks for a secret (a one-time password),
// which the coordinator gets from the human without echo and records as redacted. A wrong
// answer makes it ask again, which the record shows as the question's next attempt.
let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  input += chunk;
});
process.stdin.on("end", () => {
  const { tool } = JSON.parse(input);
  const { name, version } = tool.arguments;
  const otp = tool.answers.otp;
  if (typeof otp === "string" && /^\d{6}$/.test(otp)) {
    process.stdout.write(
      JSON.stringify({ type: "success", content: `Published ${name}@${version}.` }),
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
