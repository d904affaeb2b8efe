#!/usr/bin/env bash
# The test command (docs/testing.md).
#   ./dev test            everything: contracts, typecheck, lint, Helm, the fuzzing gate and every jest test against the
#                         real PostgreSQL, Kafka and Redis on loopback. The static checks and the fuzzing gate run beside
#                         jest; the run ends with the stage timings, the slowest test files and jest's summary line.
#   ./dev test --quick    the inner loop: typecheck, lint of the changed files and the pure tests (no servers).
#   ./dev test PATH...    jest only, on the matching files (after the servers are up); FUZZ_GATE=1 adds the gate,
#                         UI_SUITE=1 the UI suite.
set -euo pipefail
. "$(dirname "$0")/env.sh"
cd "$ROOT"
RESULTS="$DATA/test-results"
# The static checks' and jest's caches live with the tools (.tools/, kept by CI between runs like the tools themselves),
# one directory per checkout (their entries name files by path); a checkout's unused for two weeks is removed.
CACHE="$TOOLS/cache/$(printf %s "$ROOT" | sha256sum | cut -c1-12)"
mkdir -p "$RESULTS" "$CACHE" && touch "$CACHE"
find "$TOOLS/cache" -mindepth 1 -maxdepth 1 -type d -mtime +14 -exec rm -rf {} + 2>/dev/null || true
run_started=$SECONDS

# Each stage's output goes to its own file and is printed when it ends, so stages running together stay readable.
declare -A stage_pid stage_started
epoch() { date +%s; }
timings=()
# The CPU seconds a process's waited-for children used (user + system, /proc's cutime and cstime): what a stage cost
# the two cores, beside the wall seconds it took while sharing them.
children_cpu() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%d", ($16 + $17) / hz }' "/proc/$1/stat"; }
# Busy and total ticks of the machine's CPUs since boot (/proc/stat's first line).
machine_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat; }
read -r run_busy0 run_total0 < <(machine_ticks)
# CPU ticks the servers (PostgreSQL with its backends, live and ended, Kafka, Redis) have used since they started:
# their work for the tests is in no stage's column. Other checkouts sharing the servers count too.
servers_ticks() { # prints PostgreSQL's, Kafka's and Redis's ticks
  local port pid t total
  for port in "$PG_PORT" "$KAFKA_PORT" "$REDIS_PORT"; do
    total=0
    pid="$(ss -ltnpH 2>/dev/null | grep -E ":$port " | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2)"
    for pid in $pid $([ -z "$pid" ] || pgrep -P "$pid"); do
      t="$(awk '{ print $14 + $15 + $16 + $17 }' "/proc/$pid/stat" 2>/dev/null)" && total=$((total + ${t:-0}))
    done
    printf '%s ' "$total"
  done
  echo
}
stage_begin() { # name command... (STAGE_NICE=n: at a lower priority, so that jest's servers keep the CPU they wait on)
  local name=$1; shift
  stage_started[$name]=$(epoch)
  rm -f "$RESULTS/$name.ended" "$RESULTS/$name.cpu"
  ( [ -z "${STAGE_NICE:-}" ] || renice -n "$STAGE_NICE" "$BASHPID" >/dev/null
    rc=0; "$@" || rc=$?; date +%s >"$RESULTS/$name.ended"; children_cpu "$BASHPID" >"$RESULTS/$name.cpu"
    exit $rc ) >"$RESULTS/$name.log" 2>&1 &
  stage_pid[$name]=$!
}
failed=()
timing() { # name seconds rc [cpu-seconds] (rc -: no outcome)
  local outcome=""
  [ "$3" = - ] || outcome="$([ "$3" -eq 0 ] && echo ok || echo "FAILED ($3)")"
  timings+=("$(printf '%-24s %5ss %6s  %s' "$1" "$2" "${4:+${4}s cpu}" "$outcome")")
}
stage_end() { # name
  local name=$1 rc=0
  wait "${stage_pid[$name]}" || rc=$?
  # Its own end, written by the stage: the wait above may come long after it (stages end while jest runs).
  local took=$(($(cat "$RESULTS/$name.ended" 2>/dev/null || epoch) - stage_started[$name]))
  timing "$name" "$took" "$rc" "$(cat "$RESULTS/$name.cpu" 2>/dev/null)"
  if [ $rc -ne 0 ]; then
    failed+=("$name")
    log "== $name failed after ${took}s:"
    cat "$RESULTS/$name.log" >&2
  else
    log "== $name ok (${took}s)"
    [ -s "$RESULTS/$name.log" ] && sed 's/^/   /' "$RESULTS/$name.log" >&2
  fi
  return 0
}

# The static checks, with their caches ($CACHE): tsc's incremental build info, eslint's and prettier's caches. ESLint's
# cache keys a file by its own content (and the configuration): a type-aware finding that another file's change would
# bring to an unchanged file shows when that file is next linted or the cache is gone (docs/testing.md).
# The single-page app has a project of its own (the browser's DOM, JSX), beside the workspace's Node one.
# Every step runs, and any that fails fails the stage (a function's own status is only its last command's: a failing
# first tsc once passed as "ok").
typecheck() {
  local rc=0
  tsc -p tsconfig.json --incremental --tsBuildInfoFile "$CACHE/tsc.tsbuildinfo" || rc=1
  tsc -p services/frontend/tsconfig.json --incremental --tsBuildInfoFile "$CACHE/tsc-frontend.tsbuildinfo" || rc=1
  return $rc
}
# ESLint replays a cached file's findings while its content is the same, even where they came from another file's
# types that have changed since: a failure is believed only once the files are linted again without the cache (which
# the run writes anew).
eslint_cached() {
  local args=(--max-warnings=0 --cache --cache-strategy content --cache-location "$CACHE/eslint")
  eslint "${args[@]}" "$@" && return
  echo "eslint: linting again without its cache, to confirm"
  rm -f "$CACHE/eslint"
  eslint "${args[@]}" "$@"
}
lint_all() {
  local rc=0
  prettier --check --log-level=warn --cache --cache-location "$CACHE/prettier" . || rc=1
  eslint_cached . || rc=1
  return $rc
}
# The files that differ from the main branch (committed or not), which --quick lints.
changed_ts() {
  local base; base="$(git merge-base HEAD origin/main 2>/dev/null || git merge-base HEAD main 2>/dev/null || echo HEAD)"
  { git diff --name-only --diff-filter=d "$base"; git ls-files --others --exclude-standard; } | sort -u |
    grep -E '\.(ts|tsx|js)$' | grep -vE '^(proto/gen|deploy|packages/api-client/gen)/' || true
}
lint_changed() {
  local files; mapfile -t files < <(changed_ts)
  [ ${#files[@]} -gt 0 ] || { echo "no changed files to lint"; return 0; }
  local rc=0
  prettier --check --log-level=warn --cache --cache-location "$CACHE/prettier" "${files[@]}" || rc=1
  eslint_cached "${files[@]}" || rc=1
  return $rc
}
PATH="$ROOT/node_modules/.bin:$PATH"

# Time limits, so that a hang fails the run with its place named instead of holding CI to its own limit: a test or hook
# 30 s unless it says (jest.config.js), a test file 10 minutes (JEST_FILE_TIMEOUT_MS, patches/jest-light-runner@0.8.2.patch),
# jest as a whole, the fuzzing gate and the UI suite each STAGE_LIMIT seconds. `timeout` signals the command's whole
# process group, so the workers and the servers they started go with it; at a terminal it stays in the foreground
# group instead (else Ctrl-C would not reach the command) and signals the command alone.
STAGE_LIMIT="${STAGE_LIMIT:-2400}"
within_limit() {
  local foreground=()
  [ -t 0 ] && foreground=(--foreground)
  timeout "${foreground[@]}" --kill-after=30 "$STAGE_LIMIT" "$@"
}
jest_run() { # results-file jest-args...
  local out=$1; shift
  # jest itself loads the global set-up as an ES module (swc-transformed): hence the VM-modules flag.
  within_limit node --experimental-vm-modules --disable-warning=ExperimentalWarning node_modules/jest/bin/jest.js \
    --cacheDirectory "$CACHE/jest" --json --outputFile="$out" "$@"
}
# What the jest workers were running when jest ran over its limit (packages/testkit/src/test-worker-setup.ts).
report_overrun() { # rc
  [ "$1" -eq 124 ] || [ "$1" -eq 137 ] || return 0
  log "== jest ran over its ${STAGE_LIMIT}s limit and was stopped; the files still running:"
  cat "$SCA_FILE_CPU_DIR"/*.running >&2 2>/dev/null || echo "   (none noted)" >&2
}
# jest's summary, the closing line CI reads.
jest_summary() {
  node -e 'const r=require(process.argv[1]);console.log(`jest: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests} skipped`)' "$1"
}
print_timings() { # [jest-results-file]
  local busy total
  read -r busy total < <(machine_ticks)
  log "== timings (whole run $((SECONDS - run_started))s; the $(nproc) CPUs $(((busy - run_busy0) * 100 / (total - run_total0 + 1)))% busy)"
  printf '   %s\n' "${timings[@]}" >&2
  if [ -n "${1:-}" ] && [ -s "$1" ]; then
    log "== the 15 slowest test files (all: $1)"
    node -e '
      const fs = require("node:fs");
      const [results, root, cpuDir] = process.argv.slice(1);
      // Each file s CPU, noted by packages/testkit/src/test-worker-setup.ts.
      const cpu = new Map();
      for (const f of cpuDir && fs.existsSync(cpuDir) ? fs.readdirSync(cpuDir) : [])
        for (const l of fs.readFileSync(`${cpuDir}/${f}`, "utf8").trim().split("\n")) {
          const note = JSON.parse(l);
          cpu.set(note.file, note.cpuSeconds);
        }
      const r = require(results);
      const rows = r.testResults.map((t) => [(t.endTime - t.startTime) / 1000, t.name]);
      rows.sort((a, b) => b[0] - a[0]);
      for (const [s, n] of rows.slice(0, 15)) {
        const c = cpu.has(n) ? `${cpu.get(n).toFixed(0)}s cpu` : "";
        console.error(`   ${s.toFixed(1).padStart(7)}s ${c.padStart(9)}  ${n.replace(root + "/", "")}`);
      }
      const sum = [...cpu.values()].reduce((a, b) => a + b, 0);
      if (cpu.size) console.error(`   (CPU of ${cpu.size} of ${rows.length} files: ${sum.toFixed(0)}s; all in ${cpuDir})`);
    ' "$1" "$ROOT" "${FILE_CPU_DIR:-}"
  fi
}

if [ "${1:-}" = "--quick" ]; then
  shift
  stage_begin typecheck typecheck
  stage_begin lint-changed lint_changed
  stage_started[jest-pure]=$(epoch)
  rc=0
  jest_run "$RESULTS/quick.json" --selectProjects pure "$@" || rc=$?
  timing jest-pure "$(($(epoch) - stage_started[jest-pure]))" "$rc"
  stage_end typecheck
  stage_end lint-changed
  print_timings "$RESULTS/quick.json"
  jest_summary "$RESULTS/quick.json" || true
  [ $rc -eq 0 ] && [ ${#failed[@]} -eq 0 ]
  exit
fi

bash scripts/stack/servers.sh start
servers_ticks0="$(servers_ticks)"
# Tests use their own database and Redis index, so a running portal's data is never touched.
export DATABASE_URL="postgresql://sca:sca@127.0.0.1:$PG_PORT/sca_test"
export REDIS_URL="redis://127.0.0.1:$REDIS_PORT/1"
export KAFKA_BROKERS="127.0.0.1:$KAFKA_PORT"
export SECRET_KEY="test-secret-key-that-is-at-least-32-characters"
export APP_ENV=dev LOG_LEVEL="${LOG_LEVEL:-ERROR}"

whole=0
[ $# -eq 0 ] && whole=1
if [ $whole = 1 ]; then
  # Independent of jest and of each other.
  STAGE_NICE=5 stage_begin contracts bash scripts/check-proto.sh
  STAGE_NICE=5 stage_begin api-client bash scripts/check-api-client.sh
  STAGE_NICE=5 stage_begin config-docs node scripts/config-reference.ts --check
  STAGE_NICE=5 stage_begin typecheck typecheck
  STAGE_NICE=5 stage_begin lint lint_all
  STAGE_NICE=5 stage_begin helm bash scripts/check-helm.sh
  # Every image built (buildah's layer cache: only what changed is rebuilt), pushed to a local registry, and the whole
  # portal run from them through the README's first scan (docs/deploy.md, "Images").
  STAGE_NICE=5 stage_begin images bash -c 'bash scripts/images.sh --if-changed && bash scripts/check-images.sh'
fi
# The fuzzing gate runs on a whole run (a path filter means someone is iterating on a few tests), beside jest.
if [ $whole = 1 ] || [ "${FUZZ_GATE:-}" = 1 ]; then stage_begin fuzzing-gate within_limit node fuzz/gate.ts; fi
# The UI suite (Playwright on Debian's chromium against a portal of its own, docs/ui.md) likewise; UI_SUITE=1 adds it.
if [ $whole = 1 ] || [ "${UI_SUITE:-}" = 1 ]; then stage_begin ui within_limit node services/frontend/e2e/run.ts; fi

# One results file per run, so two checkouts sharing the servers never read each other's; the newest is also kept as
# .data/test-results/jest.json for the timings.
results="$(mktemp -t jest-results.XXXXXX.json)"
export SCA_FILE_CPU_DIR="$RESULTS/file-cpu"
FILE_CPU_DIR="$SCA_FILE_CPU_DIR"
rm -rf "$SCA_FILE_CPU_DIR" && mkdir -p "$SCA_FILE_CPU_DIR"
stage_started[jest]=$(epoch)
log "== jest"
rc=0
( rc=0; jest_run "$results" "$@" || rc=$?; children_cpu "$BASHPID" >"$RESULTS/jest.cpu"; exit $rc ) || rc=$?
report_overrun "$rc"
timing jest "$(($(epoch) - stage_started[jest]))" "$rc" "$(cat "$RESULTS/jest.cpu" 2>/dev/null)"
read -r pg0 kafka0 redis0 <<<"$servers_ticks0"
read -r pg1 kafka1 redis1 <<<"$(servers_ticks)"
hz=$(getconf CLK_TCK)
servers_cpu=$(((pg1 - pg0 + kafka1 - kafka0 + redis1 - redis0) / hz))
servers_split="postgres $(((pg1 - pg0) / hz)), kafka $(((kafka1 - kafka0) / hz)), redis $(((redis1 - redis0) / hz))"
cp "$results" "$RESULTS/jest.json" 2>/dev/null || true
for name in contracts api-client config-docs typecheck lint helm images fuzzing-gate ui; do [ -n "${stage_pid[$name]:-}" ] && stage_end "$name"; done
timing "servers (while jest ran)" - - "$servers_cpu"
timings+=("   ($servers_split)")
print_timings "$results"
jest_summary "$results" || true
[ $rc -eq 0 ] && [ ${#failed[@]} -eq 0 ]
