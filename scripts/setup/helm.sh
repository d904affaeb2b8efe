#!/usr/bin/env bash
# helm, built from the Go module proxy (no prebuilt binary download is reachable here).
set -euo pipefail
. "$(dirname "$0")/../env.sh"
if [ ! -x "$TOOLS/helm-$HELM_VERSION/helm" ]; then
  command -v go >/dev/null || die "Go is required to build helm"
  log "building helm $HELM_VERSION (first run only)"
  GOBIN="$TOOLS/helm-$HELM_VERSION" GOFLAGS=-mod=mod go install "helm.sh/helm/v4/cmd/helm@$HELM_VERSION"
fi
mkdir -p "$TOOLS/bin"
ln -sf "$TOOLS/helm-$HELM_VERSION/helm" "$TOOLS/bin/helm"
