import type { z } from "zod";
import { eventSchemas } from "../events.js";

// JP's ChatResponse is untagged: the field that is present picks the variant. Choosing it up
// front gives an error about that variant instead of a union error listing all three.
export function chatResponseVariant(json: Record<string, unknown>): z.ZodType<unknown> {
  const { chatMessage, chatReasoning, chatStructured } = eventSchemas();
  if ("message" in json) return chatMessage;
  if ("reasoning" in json) return chatReasoning;
  if ("data" in json) return chatStructured;
  return chatMessage;
}
