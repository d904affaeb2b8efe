#!/usr/bin/env bash
# Fulcio, built from the Go module proxy: the certificate authority the keyless signing tests get their certificates
# from (docs/signing.md, "Keyless"). Built only when missing (about 45 minutes on 2 cores); cached under .tools/.
set -euo pipefail
. "$(dirname "$0")/../env.sh"
. "$(dirname "$0")/go-tool.sh"
go_tool fulcio "$FULCIO_VERSION" github.com/sigstore/fulcio fulcio
