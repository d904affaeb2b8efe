#!/usr/bin/env bash
# A local S3-compatible server for the S3 artefact store's tests: moto's server mode (moto[server] from PyPI) in a
# project virtualenv. It speaks the S3 REST protocol (multipart uploads, ranged and streamed GETs, HEAD, DELETE) on
# loopback, installs in seconds from PyPI, and is actively maintained; docs/scans.md says why not MinIO.
set -euo pipefail
. "$(dirname "$0")/../env.sh"
VENV="$TOOLS/moto-$MOTO_VERSION"
if ! venv_ready "$VENV" moto_server; then
  rm -rf "$VENV"
  log "installing moto[server] $MOTO_VERSION (the local S3 server of the tests)"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check "moto[server]==$MOTO_VERSION"
  touch "$VENV/.complete"
fi
mkdir -p "$TOOLS/bin"
ln -sf "$VENV/bin/moto_server" "$TOOLS/bin/moto_server"
