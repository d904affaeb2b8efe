#!/usr/bin/env bash
# OSV-Scanner, built from the Go module proxy: the independent oracle our matcher's findings are compared with
# (docs/osv-oracle.md). The module needs a newer Go than the machine's: that exact toolchain comes from the proxy.
set -euo pipefail
. "$(dirname "$0")/../env.sh"
. "$(dirname "$0")/go-tool.sh"
GO_TOOL_TOOLCHAIN="$OSV_SCANNER_GO_TOOLCHAIN" \
  go_tool osv-scanner "$OSV_SCANNER_VERSION" github.com/google/osv-scanner/v2/cmd/osv-scanner osv-scanner
