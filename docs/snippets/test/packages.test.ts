// What a user installs: each package's metadata, its licence and README as they appear on npm,
// and a tarball that is built by `npm pack` itself.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO } from "./run-snippet.js";

const PACKAGES = readdirSync(join(REPO, "packages")).filter((dir) =>
  existsSync(join(REPO, "packages", dir, "package.json")),
);
const read = (path: string) => readFileSync(join(REPO, path), "utf8");
const manifest = (dir: string) =>
  JSON.parse(read(`packages/${dir}/package.json`)) as Record<string, unknown> & {
    scripts?: Record<string, string>;
    engines?: Record<string, string>;
  };

describe.each(PACKAGES)("packages/%s", (dir) => {
  it("builds itself when packed, declares Node 20.19, MIT, and stays 0.0.0 until changesets versions it", () => {
    const pkg = manifest(dir);
    expect(pkg.scripts?.prepack).toBe("npm run build");
    expect(pkg.engines).toEqual({ node: ">=20.19" });
    expect(pkg.license).toBe("MIT");
    expect(pkg.version).toBe("0.0.0");
    expect(pkg.type).toBe("module");
  });

  it("ships the licence text", () => {
    expect(read(`packages/${dir}/LICENSE`)).toBe(read("LICENSE"));
  });

  it("has no README link that leaves the package (it would break on npm)", () => {
    const links = read(`packages/${dir}/README.md`).match(/\]\((\.\.\/[^)]*)\)/g) ?? [];
    expect(links).toEqual([]);
  });
});

it("the root LICENSE is MIT", () => {
  expect(read("LICENSE")).toMatch(/^MIT License\n/);
});

it("npm pack builds the package and puts dist, README and LICENSE in the tarball", () => {
  const out = execFileSync("npm", ["pack", "--json", "--dry-run", "-w", "@jp/tool"], {
    cwd: REPO,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  // The build's own output comes first; the JSON report is last.
  const report = JSON.parse(out.slice(out.lastIndexOf("\n[\n") + 1)) as {
    files: { path: string }[];
  }[];
  const files = report[0]?.files.map((file) => file.path) ?? [];
  expect(files).toEqual(
    expect.arrayContaining([
      "LICENSE",
      "README.md",
      "package.json",
      "dist/index.js",
      "dist/index.d.ts",
    ]),
  );
});
