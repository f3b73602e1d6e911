#!/bin/sh
# `pnpm start`: builds what the service needs (turbo; a first build on a fresh clone takes a
# minute or two, later ones seconds), saying so with its time, then runs the built service, which
# prints each of its start-up steps with its time (apps/server/src/start-progress.ts).
set -eu
cd "$(dirname "$0")/.."
echo "building the service (turbo; a first build takes a minute or two)..." >&2
started=$(date +%s)
TURBO_TELEMETRY_DISABLED=1 turbo run build --filter=@sales-order/server... --output-logs=errors-only >&2
echo "built in $(($(date +%s) - started)) s" >&2
exec node apps/server/dist/main.js
