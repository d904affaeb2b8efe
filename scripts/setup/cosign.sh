#!/usr/bin/env bash
# cosign, built from the Go module proxy: the verifier we did not write that the signing tests run exactly as a
# bundle's VERIFY.md tells a user to (docs/signing.md).
set -euo pipefail
. "$(dirname "$0")/../env.sh"
. "$(dirname "$0")/go-tool.sh"
go_tool cosign "$COSIGN_VERSION" github.com/sigstore/cosign/v2/cmd/cosign cosign
