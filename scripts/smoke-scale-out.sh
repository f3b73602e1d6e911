#!/usr/bin/env bash
# Smoke test of the scale-out shape (docker-compose.yml) without Docker: two instances from the
# `pnpm deploy` folder, run with plain `node`, on one fresh PostgreSQL database and one Redis,
# behind HAProxy. Proves: both start (and migrate) at once, an order created through one is read
# through the other, HAProxy balances over both and probes /readyz, and the rate limit is
# shared (RATE_LIMIT_PER_MINUTE counts across both instances).
# Usage: scripts/smoke-scale-out.sh [DIR] (a deploy folder from scripts/check-deploy-folder.sh;
# deployed afresh when absent). Needs haproxy, pnpm, node, psql, curl; PostgreSQL at
# ADMIN_DATABASE_URL or TEST_DATABASE_URL, Redis at TEST_REDIS_URL (default 127.0.0.1:6379).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/service-harness.sh

command -v haproxy >/dev/null || fail "haproxy is not installed (apt-get install -y haproxy)"
REDIS_URL="${TEST_REDIS_URL:-redis://127.0.0.1:6379}"
RATE_LIMIT=8

DEPLOY_DIR="${1:-}"
if [ -z "$DEPLOY_DIR" ] || [ ! -e "$DEPLOY_DIR/dist/main.js" ]; then
  DEPLOY_DIR="$WORK_DIR/deploy"
  deploy_server "$DEPLOY_DIR"
fi

fresh_database scale_out_smoke
(cd "$DEPLOY_DIR" && DATABASE_URL="$DATABASE_URL" node dist/cli/migrate.js >/dev/null && DATABASE_URL="$DATABASE_URL" node dist/cli/seed.js >/dev/null) ||
  fail "migrating or seeding the database failed"
KEY="$(create_api_key "$DEPLOY_DIR" "$DATABASE_URL")"
[ -n "$KEY" ] || fail "the api-key CLI printed no key"
AUTH="Authorization: ApiKey $KEY"

PORT_A="$(free_port)"
PORT_B="$(free_port)"
LB_PORT="$(free_port)"
# Counts under a prefix of this run's own, so nothing else in that Redis is touched or counted.
REDIS_KEY_PREFIX="smoke-scale-out-$$-$RANDOM:"
CLEANUP+=("redis-cli -u '$REDIS_URL' --scan --pattern '${REDIS_KEY_PREFIX}*' | xargs -r redis-cli -u '$REDIS_URL' del")
for instance in a b; do
  port_var="PORT_${instance^^}"
  # Instance b runs two cluster workers: the budget is shared by three processes.
  workers=1
  [ "$instance" = b ] && workers=2
  # Both start together and both apply pending migrations at start-up (none left here).
  start_instance "$DEPLOY_DIR" "instance-$instance" DATABASE_URL="$DATABASE_URL" HOST=127.0.0.1 PORT="${!port_var}" \
    REDIS_URL="$REDIS_URL" REDIS_KEY_PREFIX="$REDIS_KEY_PREFIX" RATE_LIMIT_PER_MINUTE="$RATE_LIMIT" \
    TRUST_PROXY=loopback LOG_LEVEL=warn WEB_CONCURRENCY="$workers"
done
wait_ready "http://127.0.0.1:$PORT_A/readyz" 90
wait_ready "http://127.0.0.1:$PORT_B/readyz" 90

cat >"$WORK_DIR/haproxy.cfg" <<CFG
defaults
  mode http
  timeout connect 2s
  timeout client 10s
  timeout server 10s
  option forwardfor

frontend api
  bind 127.0.0.1:$LB_PORT
  default_backend sales_order_service

backend sales_order_service
  balance roundrobin
  option httpchk GET /readyz
  # Which instance answered, so the test can see both serve and both refuse.
  http-response set-header X-Served-By %s
  server a 127.0.0.1:$PORT_A check inter 1s
  server b 127.0.0.1:$PORT_B check inter 1s
CFG
haproxy -c -q -f "$WORK_DIR/haproxy.cfg" || fail "haproxy.cfg is invalid"
haproxy -db -f "$WORK_DIR/haproxy.cfg" >"$WORK_DIR/haproxy.log" 2>&1 &
HAPROXY_PID=$!
CLEANUP+=("kill $HAPROXY_PID")
LB="http://127.0.0.1:$LB_PORT"
wait_ready "$LB/readyz" 30

# 1. Create through instance a, read through instance b.
ORDER='{"customer_id":12,"sales_order_date":"'"$(date +%F)"'","location_id":1,
  "details":[{"product_id":1,"packsize_id":1,"quantity":3,"rate":33.333}],
  "other_charges":[{"description":"Carriage","amount":150}]}'
code="$(status POST "http://127.0.0.1:$PORT_A/api/sales-orders" -H "$AUTH" -H 'Content-Type: application/json' -d "$ORDER")"
[ "$code" = 201 ] || fail "create through instance a answered $code: $(cat "$WORK_DIR/body")"
ID="$(node -e 'console.log(JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8")).data.sales_order_id)' "$WORK_DIR/body")"
NUMBER="$(node -e 'console.log(JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8")).data.order_number)' "$WORK_DIR/body")"
code="$(status GET "http://127.0.0.1:$PORT_B/api/sales-orders/$ID" -H "$AUTH")"
[ "$code" = 200 ] || fail "read of order $ID through instance b answered $code: $(cat "$WORK_DIR/body")"
grep -q "\"$NUMBER\"" "$WORK_DIR/body" || fail "instance b does not show order number $NUMBER: $(cat "$WORK_DIR/body")"
echo "OK: order $ID ($NUMBER) created through instance a, read through instance b"
USED=2

# 2. Through the load balancer, until the shared limit refuses: every call from this address
# counts once across both instances, so exactly RATE_LIMIT - USED more succeed, and both
# instances refuse after that. Counted per instance, all of them would succeed.
ok=0
refused_by=""
for _ in $(seq 1 10); do
  answer="$(curl -s -m 10 -o /dev/null -D - -w '%{http_code}' -H "$AUTH" "$LB/api/sales-orders/$ID" | tr -d '\r')"
  code="${answer##*$'\n'}"
  served_by="$(sed -n 's/^x-served-by: //Ip' <<<"$answer")"
  case "$code" in
    200) ok=$((ok + 1)) ;;
    429) refused_by="$refused_by $served_by" ;;
    *) fail "a read through the load balancer answered $code" ;;
  esac
done
[ "$ok" = $((RATE_LIMIT - USED)) ] || fail "expected $((RATE_LIMIT - USED)) reads through the load balancer before the shared limit, got $ok"
[[ "$refused_by" == *a* && "$refused_by" == *b* ]] || fail "both instances should refuse once the shared limit is reached; refused by:$refused_by"
echo "OK: rate limit shared: $ok of 10 reads allowed after $USED calls (limit $RATE_LIMIT a minute), then refused by instances$refused_by"
