#!/usr/bin/env bash
# The whole test suite: lint, typecheck, contract checks, Helm checks, then the fuzzing gate, then every jest test against
# the real PostgreSQL, Kafka and Redis started on loopback. Extra arguments go to jest (e.g. a path
# filter) and skip the gate unless FUZZ_GATE=1.
set -euo pipefail
. "$(dirname "$0")/env.sh"
cd "$ROOT"
bash scripts/stack/servers.sh start

# Tests use their own database and Redis index, so a running portal's data is never touched.
export DATABASE_URL="postgresql://sca:sca@127.0.0.1:$PG_PORT/sca_test"
export REDIS_URL="redis://127.0.0.1:$REDIS_PORT/1"
export KAFKA_BROKERS="127.0.0.1:$KAFKA_PORT"
export SECRET_KEY="test-secret-key-that-is-at-least-32-characters"
export APP_ENV=dev LOG_LEVEL="${LOG_LEVEL:-ERROR}"

step() { log "== $*"; }
step "contracts: buf lint and generated code up to date"
bash scripts/check-proto.sh
step "typecheck"
pnpm -s typecheck
step "lint"
pnpm -s lint
step "helm lint and template"
bash scripts/check-helm.sh
# The fuzzing gate runs on a whole test run only (a jest path filter means someone is iterating on a few tests). It
# runs before jest so that the run ends with jest's summary, which is what CI reads for the test count.
fuzz_rc=0
if [ $# -eq 0 ] || [ "${FUZZ_GATE:-}" = 1 ]; then
  step "fuzzing gate: schemathesis against /openapi.json of a portal of its own (docs/fuzzing-gate.md)"
  set +e
  node fuzz/gate.ts
  fuzz_rc=$?
  set -e
fi
step "jest"
# One results file per run, so two checkouts sharing the servers (and .data) never read each other's.
results="$(mktemp -t jest-results.XXXXXX.json)"
set +e
node --experimental-vm-modules --disable-warning=ExperimentalWarning node_modules/jest/bin/jest.js --json --outputFile="$results" "$@"
rc=$?
set -e
node -e 'const r=require(process.argv[1]);console.log(`jest: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests} skipped`)' "$results" || true
[ $rc -ne 0 ] || rc=$fuzz_rc
exit $rc
