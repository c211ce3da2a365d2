import type { InquirySource } from "@jp/conversation";
import type { BuiltinOutcome, BuiltinTool, BuiltinToolInput } from "@jp/coordinator";

// #region contract
// BuiltinTool, from @jp/coordinator; BuiltinToolInput is { arguments, answers, signal, … } (below).
interface TheContract {
  execute(input: BuiltinToolInput): BuiltinOutcome | Promise<BuiltinOutcome>;
  inquirySource?(name: string): InquirySource; // default: { source: "tool", name }
}
// #endregion

// The contract above is the real one, both ways.
export const same: [TheContract, BuiltinTool] extends [BuiltinTool, TheContract] ? true : never =
  true;
console.log("BuiltinTool contract: ok");
