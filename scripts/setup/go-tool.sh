# Sourced by the set-up steps of tools built from the Go module proxy: one way to build and link them.
# go_tool NAME VERSION PACKAGE BINARY [LINK]: builds PACKAGE@VERSION into .tools/NAME-VERSION/ (first run only) and
# links BINARY there as .tools/bin/LINK (BINARY by default). GO_TOOL_TOOLCHAIN names a newer Go toolchain for a module
# that needs one (fetched from the proxy). Go's module, build and toolchain caches stay under .tools, so nothing lands
# in $HOME; the build runs niced: it is CPU-heavy and the machine is shared.
go_tool() {
  local name=$1 version=$2 package=$3 binary=$4 link=${5:-$4}
  local dest="$TOOLS/$name-$version"
  if [ ! -x "$dest/$binary" ]; then
    local go; go="$(command -v go || echo /usr/local/go/bin/go)"
    [ -x "$go" ] || die "Go is required to build $name"
    log "building $name $version from the Go module proxy (first run only)"
    mkdir -p "$TOOLS/go"
    GOTOOLCHAIN="${GO_TOOL_TOOLCHAIN:-local}" GOPATH="$TOOLS/go" GOMODCACHE="$TOOLS/go/pkg/mod" \
      GOCACHE="$TOOLS/go/cache" GOFLAGS="-mod=mod -modcacherw" GOBIN="$dest.partial" CGO_ENABLED=0 \
      nice -n 10 "$go" install -trimpath -ldflags="-s -w" "$package@$version"
    rm -rf "$dest" && mv "$dest.partial" "$dest"
  fi
  mkdir -p "$TOOLS/bin"
  ln -sf "$dest/$binary" "$TOOLS/bin/$link"
}
