import { afterEach, describe, expect, it, vi } from "vitest";
import { safe, styled, untrusted } from "../../src/internal/safe-text.js";

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("safe text", () => {
  it("interpolates only safe text and numbers into this package's own words", () => {
    const name = untrusted("evil\x1b[2J\u202e");
    expect(safe`Run ${name} [${1}/${2}]`).toBe("Run evil\\u202e [1/2]");
  });

  it("neutralizes bodies keeping their lines", () => {
    expect(untrusted("a\r\nb\x07", { multiline: true })).toBe("a\nb\\x07");
  });

  it("colours whatever stdout is, and not at all with NO_COLOR", () => {
    expect(styled("bold", safe`x`)).toBe("\x1b[1mx\x1b[22m");
    vi.stubEnv("NO_COLOR", "1");
    expect(styled("bold", safe`x`)).toBe("x");
  });
});
