#!/usr/bin/env bash
# cosign, built from the Go module proxy: the verifier we did not write that the signing tests run exactly as a
# bundle's VERIFY.md tells a user to (docs/signing.md). Go's caches stay under .tools.
set -euo pipefail
. "$(dirname "$0")/../env.sh"
DEST="$TOOLS/cosign-$COSIGN_VERSION"
if [ ! -x "$DEST/cosign" ]; then
  GO="$(command -v go || echo /usr/local/go/bin/go)"
  [ -x "$GO" ] || die "Go is required to build cosign"
  log "building cosign $COSIGN_VERSION (first run only, several minutes)"
  mkdir -p "$TOOLS/go"
  # nice: the build is CPU-heavy and the machine is shared.
  GOTOOLCHAIN=local GOPATH="$TOOLS/go" GOMODCACHE="$TOOLS/go/pkg/mod" GOCACHE="$TOOLS/go/cache" \
    GOFLAGS="-mod=mod -modcacherw" GOBIN="$DEST.partial" CGO_ENABLED=0 \
    nice -n 10 "$GO" install -trimpath -ldflags="-s -w" "github.com/sigstore/cosign/v2/cmd/cosign@$COSIGN_VERSION"
  rm -rf "$DEST" && mv "$DEST.partial" "$DEST"
fi
mkdir -p "$TOOLS/bin"
ln -sf "$DEST/cosign" "$TOOLS/bin/cosign"
