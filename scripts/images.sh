#!/usr/bin/env bash
# Builds the portal's images (every service's, the web UI's) from deploy/docker/Dockerfile with buildah, without a
# Docker engine or any registry (docs/deploy.md, "Images"): the base is a Debian bookworm root filesystem made by mmdebstrap from
# Debian's mirror, with the pinned Node and npm, in the layout of Node's official image. Layers are cached (buildah
# --layers), so a rebuild redoes only what changed; the base is made once per pinned version.
#   images.sh [--if-changed] [service ...]   build (all by default) and check each image: non-root user, init as entry
#       point, size. --if-changed (./dev test) keeps an image built from the same inputs as now, its commit and time
#       those of the build that made it: a test run then builds only the images its changes touch.
set -euo pipefail
. "$(dirname "$0")/env.sh"
if_changed=0
[ "${1:-}" = --if-changed ] && { if_changed=1; shift; }
SERVICES=(gateway identity projects scan-orchestrator scanner-runner policy notifier admin frontend)
[ $# -gt 0 ] && SERVICES=("$@")
. "$ROOT/scripts/images-storage.sh"
BASE="$REPO/base:bookworm-node-$NODE_VERSION-npm-$NPM_VERSION"
mkdir -p "$STORE"
# A store that cannot be read (a cache restored without overlay's special files, say) is started again from nothing.
if ! buildah "${STORAGE[@]}" images >/dev/null 2>&1; then
  log "the image store under $STORE cannot be read; starting it again"
  rm -rf "$STORE/storage" "$STORE/run"
fi

have_image() { buildah "${STORAGE[@]}" images --quiet "$1" >/dev/null 2>&1; }

# Debian's minimal system (essential packages and apt) plus what the official image adds; security updates included.
if ! have_image "$BASE"; then
  rootfs="$STORE/debian-bookworm-minbase"
  if [ ! -d "$rootfs" ]; then
    rm -rf "$rootfs.partial"
    log "making a Debian bookworm root filesystem with mmdebstrap (once)"
    mmdebstrap --quiet --variant=minbase --include=ca-certificates --mode=root bookworm "$rootfs.partial" \
      "deb http://deb.debian.org/debian bookworm main" \
      "deb http://deb.debian.org/debian bookworm-updates main" \
      "deb http://deb.debian.org/debian-security bookworm-security main"
    mv "$rootfs.partial" "$rootfs"
  fi
  log "making the base image $BASE"
  c="$(buildah "${STORAGE[@]}" from scratch)"
  trap 'buildah "${STORAGE[@]}" rm "$c" >/dev/null 2>&1 || true' EXIT
  mnt="$(buildah "${STORAGE[@]}" mount "$c")"
  cp -a "$rootfs/." "$mnt/"
  install -m 755 "$NODE_HOME/bin/node" "$mnt/usr/local/bin/node"
  cp "$NODE_HOME/LICENSE" "$mnt/usr/local/share/node-LICENSE"
  npm install --global --no-fund --no-audit --prefix "$mnt/usr/local" "npm@$NPM_VERSION" >/dev/null
  # The official image's unprivileged user, uid and gid 1000, which the Dockerfile runs as.
  echo 'node:x:1000:' >> "$mnt/etc/group"
  echo 'node:x:1000:1000::/home/node:/bin/sh' >> "$mnt/etc/passwd"
  install -d -o 1000 -g 1000 "$mnt/home/node"
  buildah "${STORAGE[@]}" umount "$c" >/dev/null
  # Node trusts the system's CA store too, as Debian's own nodejs does: a CA the platform adds to the image is honoured.
  buildah "${STORAGE[@]}" config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --env NODE_VERSION="$NODE_VERSION" --env NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt --cmd node "$c"
  buildah "${STORAGE[@]}" commit --quiet --rm "$c" "$BASE" >/dev/null
  trap - EXIT
fi

# The license notices, from the lockfile, the installed packages and the tools (docs/operations.md): made once per
# lockfile, pinned versions and generator (kept machine-wide beside the images; those of a month ago go).
mkdir -p "$DATA/images" "$STORE/notices"
key="$(cat "$ROOT/pnpm-lock.yaml" "$ROOT/scripts/versions.sh" "$ROOT/scripts/license-notices.ts" | sha256sum | cut -c1-16)"
notices="$STORE/notices/$key"
if [ ! -f "$notices/notices/index.json" ]; then
  rm -rf "$notices.partial"
  node "$ROOT/scripts/license-notices.ts" "$notices.partial/notices" "$TOOLS" >/dev/null
  mv "$notices.partial" "$notices"
fi
touch "$notices"
find "$STORE/notices" -mindepth 1 -maxdepth 1 -mtime +30 -exec rm -rf {} + 2>/dev/null || true

# The workspace's manifests, as the Dockerfile's `manifests` stage gathers them from the build context (which
# .dockerignore filters: the test kit's is not there).
manifests="$DATA/images/manifests"
rm -rf "$manifests" && mkdir -p "$manifests/manifests"
(cd "$ROOT" && cp -r --parents package.json pnpm-lock.yaml pnpm-workspace.yaml patches proto/package.json \
  $(ls packages/*/package.json services/*/package.json | grep -v '^packages/testkit/') "$manifests/manifests/")

commit="$(git -C "$ROOT" rev-parse HEAD)"
# RUN steps download from the npm registry and PyPI through this machine's network, whose egress may re-sign TLS with
# a CA of its own: the host's CA bundle is mounted over the image's for those steps (never part of a layer), and pip,
# which keeps a bundle of its own, is pointed at it.
ca=/etc/ssl/certs/ca-certificates.crt
printf '[global]\ncert = %s\n' "$ca" > "$DATA/images/pip.conf"
base_id="$(buildah "${STORAGE[@]}" images --quiet --no-trunc "$BASE")"
# What an image is built from, by content: the Dockerfile, this script, the base, the notices, the pinned versions, the
# manifests and the sources the build context gives it (.dockerignore's rules: no tests, no dotfiles, no test kit).
# What every image shares is hashed once, then each service's own folder.
hash_of() { # paths...
  (cd "$ROOT" && find "$@" -type f ! -path '*/node_modules/*' ! -path '*/test/*' ! -path '*/.*' \
    ! -path 'packages/testkit/*' ! -path 'services/frontend/dist/*' -print0 | sort -z | xargs -0 sha256sum |
    sha256sum | cut -c1-32)
}
shared_inputs="$(hash_of deploy/docker scripts/images.sh scripts/versions.sh .dockerignore package.json pnpm-lock.yaml \
  pnpm-workspace.yaml patches proto/package.json proto/gen packages services/*/package.json) $base_id $key $TAG"
inputs_of() { # service
  echo "$shared_inputs $1 $(hash_of "services/$1")" | sha256sum | cut -c1-32
}
for s in "${SERVICES[@]}"; do
  inputs="$(inputs_of "$s")"
  if [ $if_changed = 1 ] && [ "$(buildah "${STORAGE[@]}" inspect --type image \
    --format '{{index .OCIv1.Config.Labels "sca-portal.inputs"}}' "$REPO/$s:$TAG" 2>/dev/null)" = "$inputs" ]; then
    log "$REPO/$s:$TAG is built from these inputs already"
    continue
  fi
  log "building $REPO/$s:$TAG"
  # SERVICE_BUILT_AT is the commit's time, so an unchanged checkout rebuilds nothing (the last layer included).
  buildah "${STORAGE[@]}" bud --quiet --layers --pull=never --network host --isolation "${SCA_IMAGES_ISOLATION:-oci}" \
    --volume "$ca:$ca:ro" --volume "$DATA/images/pip.conf:/etc/pip.conf:ro" \
    --file "$ROOT/deploy/docker/Dockerfile" --build-context "notices=$notices" --build-context "manifests=$manifests" \
    --build-arg BASE_IMAGE="$BASE" --build-arg SERVICE="$s" --build-arg SERVICE_VERSION="$TAG" \
    --build-arg SERVICE_COMMIT="$commit" --build-arg SERVICE_BUILT_AT="$(git -C "$ROOT" show -s --format=%cI HEAD)" \
    --label "sca-portal.inputs=$inputs" --tag "$REPO/$s:$TAG" "$ROOT" >"$DATA/images/$s.log" 2>&1 || { cat "$DATA/images/$s.log" >&2; die "building $s failed"; }
  user="$(buildah "${STORAGE[@]}" inspect --type image --format '{{.OCIv1.Config.User}}' "$REPO/$s:$TAG")"
  entry="$(buildah "${STORAGE[@]}" inspect --type image --format '{{.OCIv1.Config.Entrypoint}}' "$REPO/$s:$TAG")"
  [ "$user" = 1000:1000 ] || die "$s runs as '$user', not the unprivileged 1000:1000"
  [ "$entry" = "[/usr/bin/tini --]" ] || die "$s's entry point is $entry, not tini"
done
# Sizes: about a third over today's (docs/deploy.md) fails, so that a stray dependency or tool is seen when it lands.
for s in "${SERVICES[@]}"; do
  size="$(podman "${STORAGE[@]}" image inspect --format '{{.Size}}' "$REPO/$s:$TAG")"
  max=750; [ "$s" != scanner-runner ] || max=2300
  [ $((size / 1000000)) -le $max ] || die "$s's image is $((size / 1000000)) MB, over its $max MB"
done
buildah "${STORAGE[@]}" images --format '{{.Name}}:{{.Tag}} {{.Size}}' | grep -E "^$REPO/($(IFS='|'; echo "${SERVICES[*]}")):$TAG " >&2
# Each rebuild leaves the images it replaced behind, untagged: those over a week old go (layers still used stay).
podman "${STORAGE[@]}" image prune --force --filter until=168h >/dev/null
