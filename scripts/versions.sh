# Pinned versions of everything the set-up installs: the one place to bump them.
NODE_VERSION=24.21.0
PNPM_VERSION=12.21.0
KAFKA_VERSION=4.4.0
SCANCODE_VERSION=32.5.0
CDXGEN_VERSION=12.8.4
SPDX_TOOLS_VERSION=0.8.5
HELM_VERSION=v4.3.1
SCHEMATHESIS_VERSION=4.32.5
MOTO_VERSION=5.2.5
# OSV-Scanner, the independent matching oracle; it needs a newer Go than the machine's, fetched as a toolchain module.
OSV_SCANNER_VERSION=v2.6.0
OSV_SCANNER_GO_TOOLCHAIN=go1.27.3
# The OCI registry container-scan tests push their images to: go-containerregistry's cmd/registry, from the Go proxy.
OCI_REGISTRY_VERSION=v0.22.1
# kube-score, the independent judge of the Helm chart's renderings (scripts/check-helm.sh), from the Go proxy.
KUBE_SCORE_VERSION=v1.20.0
# kubeconform, which validates the renderings against Kubernetes' own schemas (scripts/check-helm.sh), from the Go proxy.
KUBECONFORM_VERSION=v0.7.0
# The Kubernetes release whose published OpenAPI document (api/openapi-spec/swagger.json of the k8s.io/kubernetes
# module, from the Go module proxy) the chart's renderings are validated against.
KUBERNETES_SCHEMA_VERSION=v1.34.2
# cosign, the independent verifier of signed SBOMs and attestations (docs/signing.md), from the Go proxy.
COSIGN_VERSION=v2.6.5
# Fulcio, the certificate authority keyless signing is tested against (scripts/setup/fulcio.sh).
FULCIO_VERSION=v1.8.8
# Gitea, the real source host of the webhook and remediation tests (docs/scm.md), built from the Go module proxy.
GITEA_VERSION=v1.27.3
# Gitea's gitea.dev/* requirements, taken from their former code.gitea.io paths (scripts/setup/gitea.sh).
GITEA_ACTIONS_PROTO_VERSION=v0.6.0
GITEA_SDK_VERSION=v0.25.1
# npm in the images built without a registry base image (scripts/images.sh), as Node's official image carries it.
NPM_VERSION=11.19.1
