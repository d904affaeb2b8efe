#!/usr/bin/env bash
# spdx-tools (the SPDX project's Python tools) from PyPI in a project virtualenv: the SBOM export's tests check the
# SPDX 2.3 documents the portal writes with its validator (`pyspdxtools -i FILE`).
set -euo pipefail
. "$(dirname "$0")/../env.sh"
VENV="$TOOLS/spdx-tools-$SPDX_TOOLS_VERSION"
if ! venv_ready "$VENV" pyspdxtools; then
  rm -rf "$VENV"
  log "installing spdx-tools $SPDX_TOOLS_VERSION"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check "spdx-tools==$SPDX_TOOLS_VERSION"
  touch "$VENV/.complete"
fi
mkdir -p "$TOOLS/bin"
ln -sf "$VENV/bin/pyspdxtools" "$TOOLS/bin/pyspdxtools"
