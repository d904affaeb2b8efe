#!/usr/bin/env bash
# A real OCI registry: go-containerregistry's (its pkg/registry, speaking the OCI distribution API) served by its
# `crane registry serve`, built from the Go module proxy. The container-scan tests keep it in memory; the images'
# check (scripts/check-images.sh) pushes the portal's images to it with their blobs on disk.
set -euo pipefail
. "$(dirname "$0")/../env.sh"
. "$(dirname "$0")/go-tool.sh"
go_tool oci-registry "$OCI_REGISTRY_VERSION" github.com/google/go-containerregistry/cmd/crane crane crane
