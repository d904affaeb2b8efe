#!/usr/bin/env bash
# Checks that the Tiltfile's build inputs (each docker_build's `only` list) cover every path the Dockerfile COPYs from
# the build context: Tilt sends only those paths to the build, so one left out (patches/ once) breaks `tilt up` for
# every developer while CI, which builds with the whole context, stays green.
set -euo pipefail
. "$(dirname "$0")/env.sh"
python3 - "$ROOT/Tiltfile" "$ROOT/deploy/docker/Dockerfile" <<'PY' || die "the Tiltfile's only= list misses what the Dockerfile copies"
import re, sys
tiltfile, dockerfile = (open(p).read() for p in sys.argv[1:3])

# The `only=[...]` list, evaluated with the loop's service as the Dockerfile's ${SERVICE} build argument.
match = re.search(r"\bonly=(\[[^\]]*\])", tiltfile)
if not match:
    sys.exit("no only=[...] in the Tiltfile")
only = eval(match.group(1), {"__builtins__": {}}, {"service": "${SERVICE}"})

# Sources of COPY instructions that read the build context (not another stage's files).
sources = []
for line in re.sub(r"\\\n", " ", dockerfile).splitlines():
    words = line.split()
    if not words or words[0].upper() != "COPY" or any(w.startswith("--from=") for w in words):
        continue
    sources += [w for w in words[1:-1] if not w.startswith("--")]

def covered(source):
    source = source.rstrip("/").removeprefix("./")
    return any(source == entry or source.startswith(entry.rstrip("/") + "/") for entry in only)

# `COPY . ...` takes whatever the context holds (the manifests stage gathers the package.json files from it).
missing = sorted({s for s in sources if s != "." and not covered(s)})
if not sources:
    sys.exit("no COPY from the build context found in the Dockerfile")
if missing:
    sys.exit("not in the Tiltfile's only= list: " + ", ".join(missing))
print(f"the Tiltfile's only= list covers the Dockerfile's {len(set(sources))} COPY sources", file=sys.stderr)
PY
