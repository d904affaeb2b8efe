#!/usr/bin/env bash
# OSV-Scanner, built from the Go module proxy: the independent oracle our matcher's findings are compared with
# (docs/osv-oracle.md). Go's module, build and toolchain caches stay under .tools so nothing lands in $HOME.
set -euo pipefail
. "$(dirname "$0")/../env.sh"
DEST="$TOOLS/osv-scanner-$OSV_SCANNER_VERSION"
if [ ! -x "$DEST/osv-scanner" ]; then
  command -v go >/dev/null || die "Go is required to build osv-scanner"
  log "building osv-scanner $OSV_SCANNER_VERSION with $OSV_SCANNER_GO_TOOLCHAIN (first run only, a few minutes)"
  mkdir -p "$TOOLS/go"
  # The module needs a newer Go than the machine's; GOTOOLCHAIN fetches that exact toolchain from the proxy.
  # nice: the build is CPU-heavy and the machine is shared.
  GOTOOLCHAIN="$OSV_SCANNER_GO_TOOLCHAIN" GOPATH="$TOOLS/go" GOMODCACHE="$TOOLS/go/pkg/mod" GOCACHE="$TOOLS/go/cache" \
    GOFLAGS="-mod=mod -modcacherw" GOBIN="$DEST.partial" CGO_ENABLED=0 \
    nice -n 10 go install -trimpath -ldflags="-s -w" "github.com/google/osv-scanner/v2/cmd/osv-scanner@$OSV_SCANNER_VERSION"
  rm -rf "$DEST" && mv "$DEST.partial" "$DEST"
fi
mkdir -p "$TOOLS/bin"
ln -sf "$DEST/osv-scanner" "$TOOLS/bin/osv-scanner"
