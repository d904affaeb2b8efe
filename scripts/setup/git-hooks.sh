#!/usr/bin/env bash
# The repository's git hooks (scripts/git-hooks/): commit-msg keeps subjects to 72 characters.
set -euo pipefail
. "$(dirname "$0")/../env.sh"
git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1 || exit 0
git -C "$ROOT" config core.hooksPath scripts/git-hooks
