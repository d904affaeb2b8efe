#!/usr/bin/env bash
# kube-score, built from the Go module proxy: it judges the Helm chart's renderings against Kubernetes good practice
# (scripts/check-helm.sh, docs/deploy.md).
set -euo pipefail
. "$(dirname "$0")/../env.sh"
. "$(dirname "$0")/go-tool.sh"
go_tool kube-score "$KUBE_SCORE_VERSION" github.com/zegl/kube-score/cmd/kube-score kube-score
