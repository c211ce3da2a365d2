#!/usr/bin/env bash
# Checks what would be published: publint on each package, attw (esm-only) on its tarball, and
# that CommonJS can require() each entry point (Node.js 20.19 and later load ES modules so).
# Run after `npm run build`.
set -euo pipefail
cd "$(dirname "$0")/.."
packs="$(mktemp -d)"
trap 'rm -rf "$packs"' EXIT
for dir in packages/*/; do
  name="$(node -p "require('./${dir}package.json').name")"
  npx publint "$dir" >/dev/null
  npm pack -w "$name" --pack-destination "$packs" --silent >/dev/null
done
for tarball in "$packs"/*.tgz; do
  npx attw "$tarball" --profile esm-only --quiet
done
for entry in $(node -e '
  const { readdirSync, readFileSync } = require("node:fs");
  for (const dir of readdirSync("packages")) {
    const pkg = JSON.parse(readFileSync(`packages/${dir}/package.json`, "utf8"));
    for (const key of Object.keys(pkg.exports ?? {})) {
      if (key !== "./package.json") console.log(pkg.name + key.slice(1));
    }
  }'); do
  node -e "require(process.argv[1])" "$entry"
done
echo "packages: publint and attw clean; every entry point loads with require()"
