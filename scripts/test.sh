#!/usr/bin/env bash
# The one test command (npm test): layers, format, lint, types on both runtimes, then every suite
# on Node and on Deno (the package test among them: pack, install, use on Node and on Deno).
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(find tests -name '*.test.ts' | sort)
echo "== dependency-cruiser (layers: .dependency-cruiser.cjs, docs/architecture.md)"
npx depcruise src --config .dependency-cruiser.cjs
echo "== deno fmt --check"
npx deno fmt --check
echo "== deno lint"
npx deno lint
echo "== tsc --noEmit"
npx tsc --noEmit
echo "== deno check"
npx deno check main.ts src/ models/ hooks/ lib/ tests/ scripts/
echo "== node --test (${#files[@]} files)"
node --test --import tsx "${files[@]}"
echo "== deno test"
npx deno test -A "${files[@]}"
