#!/usr/bin/env bash
# kubeconform, built from the Go module proxy, and the JSON schemas it validates the Helm chart's renderings against
# (scripts/check-helm.sh, docs/deploy.md): made here from Kubernetes' own OpenAPI document, which the k8s.io/kubernetes
# module carries (fetched and checksum-verified by `go mod download`), by scripts/kubernetes-json-schemas.ts.
set -euo pipefail
. "$(dirname "$0")/../env.sh"
. "$(dirname "$0")/go-tool.sh"
go_tool kubeconform "$KUBECONFORM_VERSION" github.com/yannh/kubeconform/cmd/kubeconform kubeconform
SCHEMAS="$TOOLS/kubernetes-json-schema-$KUBERNETES_SCHEMA_VERSION"
export GOPATH="$TOOLS/go" GOMODCACHE="$TOOLS/go/pkg/mod" GOCACHE="$TOOLS/go/cache" GOFLAGS="-mod=mod -modcacherw"
if [ ! -f "$SCHEMAS/.complete" ]; then
  log "making the Kubernetes $KUBERNETES_SCHEMA_VERSION JSON schemas (first run only)"
  zip="$(cd "$TOOLS" && go mod download -json "k8s.io/kubernetes@$KUBERNETES_SCHEMA_VERSION" |
    node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(0, "utf8")).Zip)')"
  rm -rf "$SCHEMAS.partial" && mkdir -p "$SCHEMAS.partial"
  python3 -c "import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))" \
    "$zip" "k8s.io/kubernetes@$KUBERNETES_SCHEMA_VERSION/api/openapi-spec/swagger.json" >"$SCHEMAS.partial/swagger.json"
  node "$ROOT/scripts/kubernetes-json-schemas.ts" "$SCHEMAS.partial/swagger.json" "$SCHEMAS.partial"
  touch "$SCHEMAS.partial/.complete"
  rm -rf "$SCHEMAS" && mv "$SCHEMAS.partial" "$SCHEMAS"
fi
