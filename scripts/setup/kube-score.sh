#!/usr/bin/env bash
# kube-score, built from the Go module proxy: it judges the Helm chart's renderings against Kubernetes good practice
# (scripts/check-helm.sh, docs/deploy.md). Go's module and build caches stay under .tools so nothing lands in $HOME.
set -euo pipefail
. "$(dirname "$0")/../env.sh"
DEST="$TOOLS/kube-score-$KUBE_SCORE_VERSION"
if [ ! -x "$DEST/kube-score" ]; then
  command -v go >/dev/null || die "Go is required to build kube-score"
  log "building kube-score $KUBE_SCORE_VERSION (first run only)"
  mkdir -p "$TOOLS/go"
  # nice: the build is CPU-heavy and the machine is shared.
  GOPATH="$TOOLS/go" GOMODCACHE="$TOOLS/go/pkg/mod" GOCACHE="$TOOLS/go/cache" \
    GOFLAGS="-mod=mod -modcacherw" GOBIN="$DEST.partial" CGO_ENABLED=0 \
    nice -n 10 go install -trimpath -ldflags="-s -w" "github.com/zegl/kube-score/cmd/kube-score@$KUBE_SCORE_VERSION"
  rm -rf "$DEST" && mv "$DEST.partial" "$DEST"
fi
mkdir -p "$TOOLS/bin"
ln -sf "$DEST/kube-score" "$TOOLS/bin/kube-score"
