#!/usr/bin/env bash
# schemathesis from PyPI in a project virtualenv: the property-based fuzzing gate of ./dev test (scripts/fuzz-gate.sh).
set -euo pipefail
. "$(dirname "$0")/../env.sh"
VENV="$TOOLS/schemathesis-$SCHEMATHESIS_VERSION"
if ! venv_ready "$VENV" st; then
  rm -rf "$VENV"
  log "installing schemathesis $SCHEMATHESIS_VERSION"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
  touch "$VENV/.complete"
fi
mkdir -p "$TOOLS/bin"
ln -sf "$VENV/bin/st" "$TOOLS/bin/st"
