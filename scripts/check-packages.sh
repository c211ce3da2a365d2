#!/usr/bin/env bash
# Checks what would be published: publint on each package, and attw (esm-only) on its tarball.
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
echo "packages: publint and attw clean"
