#!/usr/bin/env bash
# PostgreSQL and Redis from Debian's packages (only what is missing is installed); with `test` or `all`, also the
# chromium the UI's Playwright suite drives (Playwright's own browser download is not reachable); with `images`, `test` or
# `all`, what builds and runs the images without a Docker engine (scripts/images.sh).
set -euo pipefail
. "$(dirname "$0")/../env.sh"
need=()
ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || need+=(postgresql)
command -v redis-server >/dev/null || need+=(redis-server)
command -v python3 >/dev/null || need+=(python3)
python3 -c 'import venv, ensurepip' 2>/dev/null || need+=(python3-venv)
# The portal's processes run with jemalloc as malloc, as in the images (scripts/stack/portal.sh).
[ -n "$(jemalloc_library)" ] || need+=(libjemalloc2)
case "${1:-all}" in test | all) command -v chromium >/dev/null || need+=(chromium) ;; esac
case "${1:-all}" in images | test | all) for t in buildah podman runc mmdebstrap; do command -v $t >/dev/null || need+=($t); done ;; esac
if [ ${#need[@]} -gt 0 ]; then
  log "installing Debian packages: ${need[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
# Debian starts a cluster and a redis on their default ports; ours run on their own ports, so those are left alone.
