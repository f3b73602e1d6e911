#!/usr/bin/env bash
# The suite under load: runs `pnpm test` (the README's command, against PostgreSQL and Redis as
# CI runs it) RUNS times in a row with BUSY busy processes beside it (`yes > /dev/null`, each a
# core's worth of work), and prints each run's time, the load beside it and its failures. It
# shows that no test depends on the machine being quiet: every run should report 0 failures.
#
#   scripts/test-under-load.sh            # 3 runs, 6 busy processes
#   RUNS=1 BUSY=6 scripts/test-under-load.sh
#
# TEST_DATABASE_URL, TEST_REDIS_URL and CHROMIUM_PATH default to .ci/run's (127.0.0.1).
set -uo pipefail
cd "$(dirname "$0")/.."

RUNS="${RUNS:-3}"
BUSY="${BUSY:-6}"
export TEST_DATABASE_URL="${TEST_DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/postgres}"
export TEST_REDIS_URL="${TEST_REDIS_URL:-redis://127.0.0.1:6379}"
export CHROMIUM_PATH="${CHROMIUM_PATH:-/usr/bin/chromium}"
logs="$(mktemp -d "${TMPDIR:-/tmp}/test-under-load.XXXXXX")"

busy_pids=()
stop_busy() {
  # Only the processes this script started.
  for pid in "${busy_pids[@]}"; do kill "$pid" 2>/dev/null; done
  busy_pids=()
}
trap stop_busy EXIT INT TERM

for _ in $(seq 1 "$BUSY"); do
  yes > /dev/null &
  busy_pids+=("$!")
done
echo "$BUSY busy processes started (pids ${busy_pids[*]}); logs in $logs"

summary=()
for run in $(seq 1 "$RUNS"); do
  log="$logs/run-$run.log"
  load_before="$(cut -d' ' -f1 /proc/loadavg)"
  started="$(date +%s)"
  pnpm test > "$log" 2>&1
  status=$?
  seconds=$(( $(date +%s) - started ))
  load_after="$(cut -d' ' -f1 /proc/loadavg)"
  # vitest's summary lines ("Tests  2 failed | 740 passed"), without colours.
  tests="$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E '^\s+Tests\s' | tr -s ' ' | paste -sd ';' -)"
  line="run $run: exit $status, $((seconds / 60)) min $((seconds % 60)) s, load ${load_before} -> ${load_after}; ${tests}"
  echo "$line"
  sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E '^ FAIL ' | sort -u | sed 's/^/    /'
  summary+=("$line")
done

echo
echo "Summary ($BUSY busy processes beside the suite):"
printf '  %s\n' "${summary[@]}"
