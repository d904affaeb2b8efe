#!/usr/bin/env bash
# Lints (strict: warnings fail) and renders the Helm chart with its default values, with deploy/helm/ci-values.yaml
# (existing Secrets, TLS, another ingress controller) and with the Tiltfile's deploy/helm/dev-values.yaml.
set -euo pipefail
. "$(dirname "$0")/env.sh"
bash "$ROOT/scripts/setup/helm.sh"
CHART="$ROOT/deploy/helm/sca-portal"

check() { # name [helm flags...]
  local name=$1; shift
  log "helm lint and template: $name values"
  helm lint --strict --quiet "$CHART" "$@" || die "helm lint failed with the $name values"
  helm template sca-portal "$CHART" "$@" >/dev/null || die "helm template failed with the $name values"
}

check default
check ci --values "$ROOT/deploy/helm/ci-values.yaml"
check dev --values "$ROOT/deploy/helm/dev-values.yaml"
