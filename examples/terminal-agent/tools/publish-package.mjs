#!/usr/bin/env node
// A local tool in JP's protocol: it reads its JSON context on stdin and prints one Outcome.
// It "publishes" nothing: it only shows how a tool asks for a secret (a one-time password),
// which the coordinator gets from the human without echo and records as redacted.
let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  input += chunk;
});
process.stdin.on("end", () => {
  const { tool } = JSON.parse(input);
  const { name, version } = tool.arguments;
  const otp = tool.answers.otp;
  if (typeof otp !== "string") {
    const question = {
      id: "otp",
      text: `One-time password to publish ${name}@${version}`,
      context: "The registry asks for a second factor. (Demo: any 6 digits work.)",
      answer_type: { type: "secret" },
    };
    process.stdout.write(JSON.stringify({ type: "needs_input", question }));
    return;
  }
  if (!/^\d{6}$/.test(otp)) {
    process.stdout.write(
      JSON.stringify({
        type: "error",
        message: "The one-time password must be 6 digits.",
        trace: [],
        transient: false,
      }),
    );
    return;
  }
  process.stdout.write(
    JSON.stringify({ type: "success", content: `Published ${name}@${version}.` }),
  );
});
