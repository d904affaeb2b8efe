#!/usr/bin/env bash
# A real OCI registry for the container-scan tests: go-containerregistry's cmd/registry (an in-memory registry
# speaking the OCI distribution API), built from the Go module proxy.
set -euo pipefail
. "$(dirname "$0")/../env.sh"
. "$(dirname "$0")/go-tool.sh"
go_tool oci-registry "$OCI_REGISTRY_VERSION" github.com/google/go-containerregistry/cmd/registry registry oci-registry
