#!/usr/bin/env bash
# Installs what the project needs, into .tools/ (docs/testing.md, "Set-up"). Idempotent; each step is skipped when done.
#   setup.sh node     Node, pnpm and the workspace's packages (./dev test --quick)
#   setup.sh portal   what running the portal needs (./dev up): PostgreSQL, Redis, Node and pnpm, Kafka, scancode and
#                     cdxgen, the workspace's packages
#   setup.sh images   that, and buildah, podman, runc and mmdebstrap, which build and run the images (./dev images)
#   setup.sh test     that, and what only the tests use (./dev test): helm, kube-score, kubeconform and the Kubernetes
#                     schemas, OSV-Scanner, the OCI registry, schemathesis, moto's S3 server, spdx-tools, cosign, Fulcio,
#                     Gitea
#   setup.sh          (./dev setup) everything, and the repository's git hooks
# Independent steps run together; each step's output is kept in .data/setup/<step>.log and shown when it fails.
set -euo pipefail
. "$(dirname "$0")/env.sh"
S="$ROOT/scripts/setup"
mode="${1:-all}"
mkdir -p "$DATA/setup"

pids=(); names=()
begin() { bash "$S/$1.sh" >"$DATA/setup/$1.log" 2>&1 & pids+=($!); names+=("$1"); }
finish() {
  local failed=0
  for i in "${!pids[@]}"; do
    if ! wait "${pids[$i]}"; then failed=1; log "set-up step ${names[$i]} failed:"; cat "$DATA/setup/${names[$i]}.log" >&2; fi
  done
  pids=(); names=()
  [ $failed = 0 ] || die "set-up failed"
}

[ "$mode" = node ] || bash "$S/debian.sh" "$mode"
bash "$S/node.sh"
begin workspace
if [ "$mode" != node ]; then
  begin kafka
  begin scancode
fi
if [ "$mode" = test ] || [ "$mode" = all ]; then
  begin helm
  begin kube-score
  begin kubeconform
  begin osv-scanner
  begin oci-registry
  begin schemathesis
  begin s3
  begin spdx-tools
  begin cosign
  begin fulcio
  begin gitea
fi
finish
[ "$mode" != all ] || bash "$S/git-hooks.sh"
