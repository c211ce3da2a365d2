import {
  createWebPrompts,
  type StandaloneWebPrompts,
  type StandaloneWebPromptsOptions,
} from "../../src/index.js";

/** Starts a standalone prompt server; a failure to listen fails the test. */
export async function startWebPrompts(
  options: StandaloneWebPromptsOptions = {},
): Promise<StandaloneWebPrompts> {
  const started = await createWebPrompts(options);
  if (started.isErr()) throw new Error(started.error.message);
  return started.value;
}
