#!/usr/bin/env bash
# Installs everything the portal and its tests need. Idempotent; each step is skipped when already done.
set -euo pipefail
. "$(dirname "$0")/env.sh"
S="$ROOT/scripts/setup"
bash "$S/debian.sh"
bash "$S/node.sh"
bash "$S/kafka.sh"
bash "$S/scancode.sh"
bash "$S/spdx-tools.sh"
bash "$S/helm.sh"
bash "$S/osv-scanner.sh"
bash "$S/oci-registry.sh"
bash "$S/schemathesis.sh"
bash "$S/s3.sh"
# pnpm install is cheap when nothing changed; the lockfile is the contract.
(cd "$ROOT" && pnpm install --frozen-lockfile --reporter=silent)
