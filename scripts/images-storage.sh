# Sourced by scripts/images.sh and scripts/check-images.sh: where buildah and podman keep the portal's images (machine-wide,
# under .tools/containers), their settings, and the images' names.
STORE="$TOOLS/containers"
export CONTAINERS_CONF="$ROOT/deploy/docker/containers.conf"
# overlay where the kernel lets us mount it; SCA_IMAGES_STORAGE_DRIVER=vfs elsewhere (slower, a full copy per layer).
STORAGE=(--root "$STORE/storage" --runroot "$STORE/run" --storage-driver "${SCA_IMAGES_STORAGE_DRIVER:-overlay}")
REPO=localhost/sca-portal
# The chart's appVersion: the tag its image references default to.
TAG="$(sed -n 's/^appVersion: "\(.*\)"$/\1/p' "$ROOT/deploy/helm/sca-portal/Chart.yaml")"
