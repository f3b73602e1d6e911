#!/usr/bin/env bash
# The suite under load: runs `pnpm test` (the README's command, against PostgreSQL and Redis as
# CI runs it) RUNS times in a row with BUSY busy processes beside it (`yes > /dev/null`, each a
# core's worth of work), and prints each run's time, the load beside it and its failures. It
# shows that no test depends on the machine being quiet: every run should report 0 failures.
#
#   scripts/test-under-load.sh            # 3 runs of the whole suite, 6 busy processes
#   RUNS=1 BUSY=6 scripts/test-under-load.sh
#   scripts/test-under-load.sh test/server-lifecycle.test.ts test/api-key-processes.test.ts
#                                         # only these files of apps/server (paths as vitest takes
#                                         # them there), after a build so they run dist/ as pnpm test does
#
# TEST_DATABASE_URL, TEST_REDIS_URL and CHROMIUM_PATH default to .ci/run's (127.0.0.1).
# Exits 1 when any run failed. The busy processes are stopped however the script ends: at its
# end, on Ctrl+C or a TERM (with the run under way), and (a watchdog) when the script itself is killed.
set -uo pipefail
cd "$(dirname "$0")/.."

RUNS="${RUNS:-3}"
BUSY="${BUSY:-6}"
export TEST_DATABASE_URL="${TEST_DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/postgres}"
export TEST_REDIS_URL="${TEST_REDIS_URL:-redis://127.0.0.1:6379}"
export CHROMIUM_PATH="${CHROMIUM_PATH:-/usr/bin/chromium}"
logs="$(mktemp -d "${TMPDIR:-/tmp}/test-under-load.XXXXXX")"
files=("$@")

if [ "${#files[@]}" -gt 0 ]; then
  # The server's processes run dist/ when it is current (test/support/server-process.ts).
  TURBO_TELEMETRY_DISABLED=1 pnpm build --output-logs=errors-only > "$logs/build.log" 2>&1 ||
    { echo "pnpm build failed: $logs/build.log"; exit 1; }
  what="${#files[@]} test file(s) of apps/server: ${files[*]}"
else
  what="the whole suite (pnpm test)"
fi

# Each run, and each busy process, in a process group of its own: a run stopped early is
# stopped whole (turbo, vitest and the service processes a test started).
set -m
busy_pids=()
watchdog=""
test_pid=""
stop_all() {
  # Only the processes this script started.
  if [ -n "$test_pid" ]; then kill -TERM -- "-$test_pid" 2>/dev/null; fi
  if [ "${#busy_pids[@]}" -gt 0 ]; then kill "${busy_pids[@]}" 2>/dev/null; fi
  if [ -n "$watchdog" ]; then kill "$watchdog" 2>/dev/null; fi
  test_pid=""
  busy_pids=()
  watchdog=""
}
trap stop_all EXIT
# Trapped, a signal would otherwise let the script go on to the next run, unloaded.
trap 'exit 130' INT
trap 'exit 143' TERM

for _ in $(seq 1 "$BUSY"); do
  yes > /dev/null &
  busy_pids+=("$!")
done
# Killed outright (SIGKILL), the script runs no trap: this stops the busy processes and the
# run under way after it.
script_pid=$$
(
  trap '' INT
  while kill -0 "$script_pid" 2>/dev/null; do sleep 2; done
  kill "${busy_pids[@]}" 2>/dev/null
  if [ -s "$logs/run.pid" ]; then kill -TERM -- "-$(cat "$logs/run.pid")" 2>/dev/null; fi
) &
watchdog=$!
echo "$BUSY busy processes started (pids ${busy_pids[*]}) beside $what; logs in $logs"

run_tests() {
  if [ "${#files[@]}" -gt 0 ]; then
    (cd apps/server && pnpm exec vitest run "${files[@]}")
  else
    pnpm test
  fi
}

# The log without colours, and without turbo's "@sales-order/server:test: " before each line.
plain() { sed -E 's/\x1b\[[0-9;]*m//g; s/^@[^ :]+:[^ :]+: //' "$1"; }

summary=()
failed=0
for run in $(seq 1 "$RUNS"); do
  log="$logs/run-$run.log"
  load_before="$(cut -d' ' -f1 /proc/loadavg)"
  started="$(date +%s)"
  # In the background and waited for: a signal is handled at once, not after the run.
  run_tests > "$log" 2>&1 &
  test_pid=$!
  echo "$test_pid" > "$logs/run.pid"
  wait "$test_pid"
  status=$?
  test_pid=""
  : > "$logs/run.pid"
  seconds=$(($(date +%s) - started))
  load_after="$(cut -d' ' -f1 /proc/loadavg)"
  [ "$status" -eq 0 ] || failed=1
  # vitest's summary lines ("Tests  2 failed | 740 passed"), one per package.
  tests="$(plain "$log" | grep -E '^\s+Tests\s' | tr -s ' ' | paste -sd ';' -)"
  line="run $run: exit $status, $((seconds / 60)) min $((seconds % 60)) s, load ${load_before} -> ${load_after}; ${tests:-no test summary (see the log)}"
  echo "$line"
  plain "$log" | grep -E '^ FAIL ' | sort -u | sed 's/^/    /'
  summary+=("$line")
done

echo
echo "Summary ($BUSY busy processes beside $what):"
printf '  %s\n' "${summary[@]}"
exit "$failed"
