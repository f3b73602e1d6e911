#!/usr/bin/env bash
# Proves the production folder: `pnpm deploy --filter @sales-order/server --prod DIR` gives a
# folder that migrates, seeds, manages API keys, serves and imports with nothing but `node`, against a
# fresh PostgreSQL database. Usage: scripts/check-deploy-folder.sh [DIR] (DIR is kept when
# given, so the scale-out smoke test can reuse it; else a temporary folder is used).
# Needs pnpm, node, psql and curl; PostgreSQL at ADMIN_DATABASE_URL or TEST_DATABASE_URL.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/service-harness.sh

DEPLOY_DIR="${1:-$WORK_DIR/deploy}"
rm -rf "$DEPLOY_DIR"
echo "deploying to $DEPLOY_DIR"
deploy_server "$DEPLOY_DIR"
for needed in dist/main.js dist/generated prisma/schema.prisma prisma/migrations node_modules/@prisma/schema-engine-wasm \
  node_modules/@sales-order/order-entry/dist/index.html; do
  [ -e "$DEPLOY_DIR/$needed" ] || fail "the deployed folder has no $needed"
done
# Only production dependencies: no test runner, no TypeScript compiler of our own.
[ ! -e "$DEPLOY_DIR/node_modules/vitest" ] || fail "devDependencies were deployed"

fresh_database deploy_check
echo "migrating with: node dist/cli/migrate.js"
(cd "$DEPLOY_DIR" && DATABASE_URL="$DATABASE_URL" node dist/cli/migrate.js) || fail "migration failed"
(cd "$DEPLOY_DIR" && DATABASE_URL="$DATABASE_URL" node dist/cli/seed.js) || fail "seed failed"
KEY="$(create_api_key "$DEPLOY_DIR" "$DATABASE_URL")"
[ -n "$KEY" ] || fail "the api-key CLI printed no key"

PORT="$(free_port)"
BASE="http://127.0.0.1:$PORT"
echo "starting with: node dist/main.js on $BASE"
start_instance "$DEPLOY_DIR" deployed DATABASE_URL="$DATABASE_URL" HOST=127.0.0.1 PORT="$PORT" LOG_LEVEL=info ORDER_ENTRY_PAGE=true
SERVER_PID=$!
wait_ready "$BASE/readyz" 90

code="$(status GET "$BASE/api/sales-orders/1" -H "Authorization: ApiKey $KEY")"
[ "$code" = 200 ] || fail "GET /api/sales-orders/1 answered $code: $(cat "$WORK_DIR/body")"
grep -q '"success":true' "$WORK_DIR/body" || fail "GET /api/sales-orders/1 body: $(cat "$WORK_DIR/body")"
code="$(status GET "$BASE/api/sales-orders/1")"
[ "$code" = 401 ] || fail "an unauthenticated call answered $code"
code="$(status GET "$BASE/order-entry/")"
[ "$code" = 200 ] && grep -q 'name="sales-order-api"' "$WORK_DIR/body" || fail "GET /order-entry/ answered $code"
# The import CLI runs from the folder too: it calls the service through the SDK, a production dependency.
printf 'order_ref,customer_id,location_id,sales_order_date,product_id,quantity,rate\ndeploy-1,1,1,2026-11-15,1,1,10\n' \
  >"$WORK_DIR/orders.csv"
echo "importing with: node dist/cli/import.js"
(cd "$DEPLOY_DIR" && SALES_ORDER_URL="$BASE/api" SALES_ORDER_API_KEY="$KEY" node dist/cli/import.js "$WORK_DIR/orders.csv") \
  >"$WORK_DIR/import.log" 2>&1 && code=0 || code=$?
# 0: the order was made; 3: refused by the seeded data's rules. Either way the import ran to its end.
{ [ "$code" = 0 ] || [ "$code" = 3 ]; } && grep -q '^Import [0-9]* completed' "$WORK_DIR/import.log" ||
  fail "the import CLI exited with $code: $(cat "$WORK_DIR/import.log")"
# What an orchestrator sends: a graceful stop ends with exit code 0.
kill -TERM "$SERVER_PID"
wait "$SERVER_PID" && code=0 || code=$?
[ "$code" = 0 ] || fail "the server exited with $code after SIGTERM"
grep -q '"msg":"stopped"' "$WORK_DIR/deployed.log" || fail "the server did not log its graceful stop"
echo "OK: the deployed folder migrated, seeded, created a key, served /readyz, an authenticated read and the order entry page, and imported a file with its CLI, with plain node, and stopped with exit code 0 on SIGTERM"
