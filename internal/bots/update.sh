#!/usr/bin/env bash
# Refreshes crawler-user-agents.json from the npm package of the maintained
# list (github.com/monperrus/crawler-user-agents, MIT). Run, review the
# diff, run the tests, commit.
set -euo pipefail
cd "$(dirname "$0")"
version="${1:-latest}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "crawler-user-agents@$version" >/dev/null && tar xzf crawler-user-agents-*.tgz)
cp "$tmp/package/crawler-user-agents.json" crawler-user-agents.json
cp "$tmp/package/LICENSE" LICENSE.crawler-user-agents
node -p "require('$tmp/package/package.json').version" > VERSION
echo "crawler-user-agents $(cat VERSION)"
