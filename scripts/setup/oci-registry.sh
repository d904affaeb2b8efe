#!/usr/bin/env bash
# A real OCI registry for the container-scan tests: go-containerregistry's cmd/registry (an in-memory registry
# speaking the OCI distribution API), built from the Go module proxy. Go's caches stay under .tools.
set -euo pipefail
. "$(dirname "$0")/../env.sh"
DEST="$TOOLS/oci-registry-$OCI_REGISTRY_VERSION"
if [ ! -x "$DEST/registry" ]; then
  GO="$(command -v go || echo /usr/local/go/bin/go)"
  [ -x "$GO" ] || die "Go is required to build the test OCI registry"
  log "building the OCI registry (go-containerregistry $OCI_REGISTRY_VERSION; first run only)"
  mkdir -p "$TOOLS/go"
  # nice: the build is CPU-heavy and the machine is shared.
  GOTOOLCHAIN=local GOPATH="$TOOLS/go" GOMODCACHE="$TOOLS/go/pkg/mod" GOCACHE="$TOOLS/go/cache" \
    GOFLAGS="-mod=mod -modcacherw" GOBIN="$DEST.partial" CGO_ENABLED=0 \
    nice -n 10 "$GO" install -trimpath -ldflags="-s -w" \
    "github.com/google/go-containerregistry/cmd/registry@$OCI_REGISTRY_VERSION"
  rm -rf "$DEST" && mv "$DEST.partial" "$DEST"
fi
mkdir -p "$TOOLS/bin"
ln -sf "$DEST/registry" "$TOOLS/bin/oci-registry"
