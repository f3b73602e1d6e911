# Shared by the deploy-folder check and the scale-out smoke test (sourced, not run): start the
# service from a `pnpm deploy` folder with plain `node`, on a database of its own, and clean
# everything up on exit. Everything listens on 127.0.0.1.

ADMIN_DATABASE_URL="${ADMIN_DATABASE_URL:-${TEST_DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/postgres}}"
WORK_DIR="$(mktemp -d)"
CLEANUP=("rm -rf '$WORK_DIR'")

# Runs the cleanup steps newest first, whatever happened before.
cleanup() {
  local status=$?
  for ((i = ${#CLEANUP[@]} - 1; i >= 0; i--)); do eval "${CLEANUP[i]}" >/dev/null 2>&1 || true; done
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
  echo "FAIL: $*" >&2
  for log in "$WORK_DIR"/*.log; do [ -f "$log" ] && { echo "--- last lines of $(basename "$log")" >&2; tail -n 20 "$log" >&2; }; done
  exit 1
}

# A TCP port nothing listens on now.
free_port() {
  node -e "const s = require('node:net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close(); });"
}

# Creates an empty database, dropped on exit, and sets DATABASE_URL to it. (Not run in $(...):
# the cleanup step must be registered in this shell.)
fresh_database() {
  local name="$1_$(date +%s)_$RANDOM"
  psql "$ADMIN_DATABASE_URL" -qAtc "CREATE DATABASE $name" >/dev/null || fail "cannot create database $name"
  CLEANUP+=("psql '$ADMIN_DATABASE_URL' -qc 'DROP DATABASE IF EXISTS $name WITH (FORCE)'")
  local base="${ADMIN_DATABASE_URL%%\?*}"
  local query="${ADMIN_DATABASE_URL#"$base"}"
  DATABASE_URL="${base%/*}/$name$query"
}

# `pnpm deploy` of the server into $1 (production dependencies only), after a build.
deploy_server() {
  pnpm build --filter=@sales-order/server... --output-logs=errors-only >/dev/null || fail "build failed"
  pnpm --filter @sales-order/server deploy --prod "$1" >"$WORK_DIR/deploy.log" 2>&1 || fail "pnpm deploy failed"
}

# Starts `node dist/main.js` in deploy folder $1 with the given VAR=value settings; the name
# ($2) names its log. Stopped (SIGTERM) on exit. (Not run in $(...), like fresh_database.)
start_instance() {
  local dir="$1" name="$2"
  shift 2
  (cd "$dir" && exec env "$@" node dist/main.js) >"$WORK_DIR/$name.log" 2>&1 &
  local pid=$!
  CLEANUP+=("kill $pid; for _ in \$(seq 1 50); do kill -0 $pid || break; sleep 0.2; done; kill -9 $pid")
}

# Waits until URL $1 answers 200 (at most $2 seconds).
wait_ready() {
  local url="$1" seconds="${2:-60}"
  for ((i = 0; i < seconds * 5; i++)); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' -m 2 "$url")" = 200 ] && return 0
    sleep 0.2
  done
  fail "$url did not answer 200 within ${seconds}s"
}

# Creates an API key with every permission through the deploy folder's CLI; prints the key.
create_api_key() {
  local dir="$1" database_url="$2"
  (cd "$dir" && DATABASE_URL="$database_url" node dist/cli/api-key.js create --name smoke --permissions '*') |
    sed -n 's/^  Authorization: ApiKey //p'
}

# Status code of a request; the body goes to $WORK_DIR/body. Usage: status METHOD URL [curl args...]
status() {
  local method="$1" url="$2"
  shift 2
  curl -s -m 10 -o "$WORK_DIR/body" -w '%{http_code}' -X "$method" "$@" "$url"
}
