import type { z } from "zod";
import { chatResponseSchema } from "../events.js";

const [message, reasoning, structured] = chatResponseSchema.options;

// JP's ChatResponse is untagged: the field that is present picks the variant. Choosing it up
// front gives an error about that variant instead of a union error listing all three.
export function chatResponseVariant(json: Record<string, unknown>): z.ZodType<unknown> {
  if ("message" in json) return message;
  if ("reasoning" in json) return reasoning;
  if ("data" in json) return structured;
  return message;
}
