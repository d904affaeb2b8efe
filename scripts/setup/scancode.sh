#!/usr/bin/env bash
# scancode-toolkit from PyPI in a project virtualenv, and cdxgen from npm.
set -euo pipefail
. "$(dirname "$0")/../env.sh"
# pluggy 1.7 breaks scancode 32.5 at start ("did not find any 'pre_scan' hooks"), hence the pin.
# scancode runs as the scan sandbox's unprivileged user (docs/scancode.md), so the virtualenv is made from a python
# every user may run: the system's (a python under a private home, e.g. root's pyenv, is unreachable to that user).
PYTHON=python3
[ -x /usr/bin/python3 ] && PYTHON=/usr/bin/python3
VENV="$TOOLS/scancode-$SCANCODE_VERSION-pluggy16-system-python"
if ! venv_ready "$VENV" scancode; then
  rm -rf "$VENV"
  log "installing scancode-toolkit $SCANCODE_VERSION (first run takes a few minutes)"
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check "scancode-toolkit==$SCANCODE_VERSION" "pluggy<1.7"
  touch "$VENV/.complete"
fi
mkdir -p "$TOOLS/bin"
ln -sf "$VENV/bin/scancode" "$TOOLS/bin/scancode"
CDX="$TOOLS/cdxgen-$CDXGEN_VERSION"
if [ ! -f "$CDX/.complete" ]; then
  log "installing cdxgen $CDXGEN_VERSION"
  mkdir -p "$CDX"
  npm install --no-save --prefix "$CDX" "@cyclonedx/cdxgen@$CDXGEN_VERSION" >/dev/null
  touch "$CDX/.complete"
fi
ln -sf "$CDX/node_modules/.bin/cdxgen" "$TOOLS/bin/cdxgen"
