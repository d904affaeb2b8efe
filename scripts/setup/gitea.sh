#!/usr/bin/env bash
# Gitea, the source host the webhook, remediation and PR-comment tests push to and read back from (docs/scm.md).
# Its go.mod declares the module gitea.dev and carries replace directives, so `go install pkg@version` refuses it:
# a small module of our own requires it, repeats its replace lines and builds its main package. Pure-Go SQLite (its
# default driver), no bindata: the binary reads its templates and options from the source's directory
# (STATIC_ROOT_PATH, packages/testkit/src/gitea.ts).
#
# Two of its requirements live under the gitea.dev vanity host, which the Go module proxy we reach answers 403 for
# ("not available"): gitea.dev/actions-proto-go is the same code as code.gitea.io/actions-proto-go v0.6.0, but
# gitea.dev/sdk v1.1.0 has no counterpart there (code.gitea.io/sdk/gitea stops at v0.25.1, an older API). Its one
# user is the importer of repositories from another Gitea (services/migrations/gitea_downloader.go), which no test
# uses: the build takes the source from the proxy (code.gitea.io/gitea), leaves that one file out, and lets
# v0.25.1 stand in for gitea.dev/sdk in the module graph only (no package of it is compiled).
set -euo pipefail
. "$(dirname "$0")/../env.sh"
DEST="$TOOLS/gitea-$GITEA_VERSION"
if [ ! -x "$DEST/gitea" ]; then
  GO="$(command -v go || echo /usr/local/go/bin/go)"
  [ -x "$GO" ] || die "Go is required to build Gitea"
  log "building Gitea $GITEA_VERSION (first run only, several minutes)"
  export GOTOOLCHAIN=local GOPATH="$TOOLS/go" GOMODCACHE="$TOOLS/go/pkg/mod" GOCACHE="$TOOLS/go/cache" \
    GOFLAGS="-mod=mod -modcacherw" CGO_ENABLED=0
  BUILD="$DEST.partial"
  rm -rf "$BUILD" && mkdir -p "$BUILD/module"
  zip="$("$GO" mod download -json "code.gitea.io/gitea@$GITEA_VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')"
  [ -f "$zip/go.mod" ] || die "the Go proxy did not give code.gitea.io/gitea@$GITEA_VERSION"
  src="$BUILD/root"
  cp -r "$zip" "$src" && chmod -R u+w "$src"
  rm "$src/services/migrations/gitea_downloader.go"
  {
    printf 'module sca-portal.test/gitea\n\ngo %s\n\n' "$(sed -n 's/^go //p' "$src/go.mod")"
    printf 'require gitea.dev v0.0.0\n\nreplace gitea.dev => ../root\n\n'
    grep '^replace ' "$src/go.mod"
    printf 'replace gitea.dev/actions-proto-go => code.gitea.io/actions-proto-go %s\n' "$GITEA_ACTIONS_PROTO_VERSION"
    printf 'replace gitea.dev/sdk => code.gitea.io/sdk/gitea %s\n' "$GITEA_SDK_VERSION"
  } >"$BUILD/module/go.mod"
  # go.sum: Gitea's own, which covers every module it needs.
  cp "$src/go.sum" "$BUILD/module/go.sum"
  # nice: the build is CPU-heavy and the machine is shared.
  (cd "$BUILD/module" && nice -n 10 "$GO" build -p 2 -trimpath -ldflags="-s -w -X main.Version=${GITEA_VERSION#v}" -o "$BUILD/gitea" gitea.dev)
  # STATIC_ROOT_PATH names the final directory: templates, options and public assets stay; the Go sources go.
  find "$src" -name '*.go' -delete
  rm -rf "$DEST" && mv "$BUILD" "$DEST"
fi
mkdir -p "$TOOLS/bin"
ln -sf "$DEST/gitea" "$TOOLS/bin/gitea"
