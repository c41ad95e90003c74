#!/usr/bin/env bash
# The contract check of docs/openapi.yaml: the document is linted,
# and the clients brands generate from it are built and used against a real
# svc, with the tools themselves at pinned versions:
#   - Redocly CLI (recommended rules) and Spectral (spectral:oas): no problem;
#   - oapi-codegen's Go client builds, and walkthrough_test.go runs the
#     README's walk-through with it against svc on port 0, decoding strictly;
#   - openapi-typescript's types take real answers under tsc --strict.
# Needs Go and Node 20 with npm; reaches the npm registry and the Go module
# proxy only. Generated code goes to contract/gen/ (not committed).
set -euo pipefail
cd "$(dirname "$0")"
echo "== the OpenAPI contract (contract/check.sh)"
spec=../docs/openapi.yaml
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true

rm -rf gen && mkdir -p gen/svcclient
bin=node_modules/.bin

# The npm tools install while the Go half runs: the check takes the longer
# of the two, not their sum. Skipped when node_modules already holds exactly
# this lock file's packages.
(
  if ! cmp -s package-lock.json node_modules/.installed-lock.json; then
    npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
    cp package-lock.json node_modules/.installed-lock.json
  fi
) >gen/npm.log 2>&1 &
npm=$!
trap 'wait "$npm" 2>/dev/null || true' EXIT # never leave it half done

echo "-- oapi-codegen: the Go client, no config"
go tool oapi-codegen -generate types,client -package svcclient "$spec" >gen/svcclient/svcclient.gen.go
go vet ./...

echo "-- the README's walk-through with the Go client, against a real svc"
CONTRACT_CAPTURED_TS="$PWD/gen/captured.ts" go test -count=1 ./...

echo "-- npm ci (versions pinned in contract/package-lock.json)"
if ! wait "$npm"; then
  cat gen/npm.log; exit 1
fi
grep -v '^npm warn' gen/npm.log || true

echo "-- redocly lint"
# It exits 0 on warnings; its JSON totals count them.
"$bin/redocly" lint --config redocly.yaml --format=json "$spec" >gen/redocly.json 2>/dev/null || true
if ! node -e 'const t = require(process.argv[1]).totals; process.exit(t.errors + t.warnings > 0 ? 1 : 0)' "$PWD/gen/redocly.json"; then
  "$bin/redocly" lint --config redocly.yaml "$spec" || true
  echo "redocly lint: docs/openapi.yaml has errors or warnings"; exit 1
fi
echo "no errors, no warnings"

echo "-- spectral lint"
"$bin/spectral" lint --ruleset .spectral.yaml --fail-severity=hint "$spec"

echo "-- openapi-typescript: the answers captured above, under tsc --strict"
"$bin/openapi-typescript" "$spec" -o gen/svc.d.ts
"$bin/tsc" -p tsconfig.json
echo "contract: ok"
