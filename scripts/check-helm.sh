#!/usr/bin/env bash
# Judges the Helm chart (docs/deploy.md, "How the chart is checked"): each rendering below is linted strictly
# (warnings fail), rendered and validated by kubeconform against Kubernetes' own schemas (unknown fields refused); the
# default, production and all-features renderings are also scored by kube-score,
# which fails on any critical finding not accepted in KUBE_SCORE_ACCEPTED (each named with its reason in
# docs/deploy.md). Tilt's dev values are not scored: they trade safety for live updates on purpose.
set -euo pipefail
. "$(dirname "$0")/env.sh"
bash "$ROOT/scripts/setup/helm.sh"
bash "$ROOT/scripts/setup/kube-score.sh"
bash "$ROOT/scripts/setup/kubeconform.sh"
CHART="$ROOT/deploy/helm/sca-portal"
VALUES="$ROOT/deploy/helm"

# Findings accepted on purpose; docs/deploy.md, "Accepted kube-score findings", says why for each (and for
# --ignore-container-cpu-limit).
KUBE_SCORE_ACCEPTED=(
  container-security-context-user-group-id
  container-image-pull-policy
)

# kube-score's optional tests the chart is held to as well (docs/deploy.md, "Accepted kube-score findings", says why
# the others stay off).
KUBE_SCORE_OPTIONAL=(
  container-ports-check
  container-seccomp-profile
)

render() { # name [helm flags...]: lints, then renders to stdout
  local name=$1; shift
  log "helm lint and template: $name values"
  helm lint --strict --quiet "$CHART" "$@" >&2 || die "helm lint failed with the $name values"
  helm template sca-portal "$CHART" "$@" || die "helm template failed with the $name values"
}

# Custom resources the chart may render; their schemas are not in Kubernetes' OpenAPI document (docs/deploy.md).
KUBECONFORM_SKIPPED=HTTPRoute,ServiceMonitor,ScaledObject

conform() { # name: validates the rendering on stdin against Kubernetes' schemas, unknown fields refused
  log "kubeconform: $1 values"
  kubeconform -strict -summary -skip "$KUBECONFORM_SKIPPED" \
    -schema-location "$TOOLS/kubernetes-json-schema-$KUBERNETES_SCHEMA_VERSION/{{ .ResourceKind }}_{{ .Group }}_{{ .ResourceAPIVersion }}.json" \
    - >&2 || die "kubeconform found the $1 rendering invalid (above)"
}

score() { # name [helm flags...]
  local name=$1 rendered; shift
  rendered="$(render "$name" "$@")"
  log "kube-score: $name values"
  local ignores=()
  for test in "${KUBE_SCORE_ACCEPTED[@]}"; do ignores+=(--ignore-test "$test"); done
  for test in "${KUBE_SCORE_OPTIONAL[@]}"; do ignores+=(--enable-optional-test "$test"); done
  local findings
  findings="$(kube-score score --kubernetes-version v1.27 --ignore-container-cpu-limit --output-format ci "${ignores[@]}" - <<<"$rendered" || true)"
  grep -v '^\[OK\]' <<<"$findings" >&2 || true
  ! grep -q '^\[CRITICAL\]' <<<"$findings" || die "kube-score found critical problems in the $name rendering (above)"
  conform "$name" <<<"$rendered"
}

refuse() { # what [helm flags...]: the chart must refuse these values
  local what=$1; shift
  ! helm template sca-portal "$CHART" "$@" >/dev/null 2>&1 || die "the chart rendered $what; it must refuse it"
}

score default
score production --values "$VALUES/production-values.yaml"
score all-features --values "$VALUES/ci-values.yaml"
score sandboxed-runner --values "$VALUES/production-values.yaml" --values "$VALUES/sandboxed-runner-values.yaml"
render dev --values "$VALUES/dev-values.yaml" | conform dev
# Scaling the scanner-runners (docs/deploy.md, "Scaling on the queue"): the HPA on CPU by default, a KEDA
# ScaledObject on the lanes' consumer lag (and no HPA for them) when keda.enabled.
log "helm template: the scanner-runner's HPA, or KEDA's ScaledObject"
runner_scaling() { # [helm flags...]: the kinds that scale the scanner-runner, one a line
  helm template sca-portal "$CHART" "$@" | awk '/^kind:/ { kind = $2 } /^  name: sca-portal-scanner-runner$/ { print kind }' |
    grep -E '^(HorizontalPodAutoscaler|ScaledObject)$' || true
}
[ "$(runner_scaling)" = HorizontalPodAutoscaler ] || die "the default rendering must scale the scanner-runner with its HPA"
[ "$(runner_scaling --set keda.enabled=true)" = ScaledObject ] ||
  die "with keda.enabled the scanner-runner must be scaled by a ScaledObject alone"
keda="$(helm template sca-portal "$CHART" --values "$VALUES/ci-values.yaml" --set keda.enabled=true \
  --set keda.lanes.manual.minSlots=5 --show-only templates/scaledobject.yaml)"
# 5 manual slots at 2 a pod: 3 pods at least; lag thresholds are slots x lagPerSlot; topics and groups prefixed.
grep -q '^  minReplicaCount: 3$' <<<"$keda" || die "the ScaledObject's minReplicaCount must cover the lanes' minSlots"
grep -q 'topic: "sca-portal-prod.sca.scan.jobs.manual"' <<<"$keda" || die "the manual trigger must read the prefixed topic"
grep -q 'consumerGroup: "sca-portal-prod.scanner-runner.automatic"' <<<"$keda" ||
  die "the automatic trigger must read the runners' prefixed group"
grep -q 'lagThreshold: "2"' <<<"$keda" || die "the manual lane's lagThreshold must be its slots times lagPerSlot"
score keda --values "$VALUES/ci-values.yaml" --set keda.enabled=true
# Sizing the scanner-runner (docs/deploy.md, "Sizing the scanner-runner"): memory, /tmp, ephemeral storage and the
# grace period follow its slots and the scan caps, as the table there works out.
log "helm template: the scanner-runner sized from its slots"
runner_size() { # [helm flags...]: "<limit memory> <request memory> <ephemeral request> <ephemeral limit> <tmp> <grace>"
  helm template sca-portal "$CHART" "$@" --show-only templates/services.yaml |
    awk '/^---/ { doc = "" } /^  name: / && !doc { doc = $2 } doc != "sca-portal-scanner-runner" { next }
      /^            limits:/ { part = "limit" } /^            requests:/ { part = "request" }
      /^              memory:/ { memory[part] = $2 } /^              ephemeral-storage:/ { disk[part] = $2 }
      /sizeLimit:/ && !tmp { tmp = $2 } /terminationGracePeriodSeconds:/ { grace = $2 }
      END { print memory["limit"], memory["request"], disk["request"], disk["limit"], tmp, grace }'
}
# 3 slots: 768 + 3 x 2048 Mi; 768 + 2048 Mi; 1024 Mi + 3 x (4 GiB + 8 GiB of image); 600 s + 60 s.
[ "$(runner_size)" = "6912Mi 2816Mi 37888Mi 37888Mi 37888Mi 660" ] ||
  die "the default scanner-runner must be sized from its 3 slots (deploy.md's table), not: $(runner_size)"
# 1 slot with smaller image caps and a longer scancode stage: 768 + 2048 Mi; 1024 Mi + the 2 GiB archive; 900 + 60 s.
small=(--set 'services.scanner-runner.slots.manual=1' --set 'services.scanner-runner.slots.automatic=0'
  --set containerScans.imageMaxBytes=536870912 --set containerScans.imageMaxExpandedBytes=1073741824
  --set scancode.timeoutSeconds=900)
[ "$(runner_size "${small[@]}")" = "2816Mi 2816Mi 3072Mi 3072Mi 3072Mi 960" ] ||
  die "a one-slot scanner-runner must be sized from its slot and the caps, not: $(runner_size "${small[@]}")"
# The signing key (docs/signing.md): mounted from its Secret in the projects pods alone, SIGNING_KEY_PATH naming it.
log "helm template: the signing key reaches the projects pods alone"
mounting="$(helm template sca-portal "$CHART" --values "$VALUES/ci-values.yaml" |
  awk '/^kind:/ { kind = $2 } /^  name: sca-portal-/ { name = $2 } /secretName: sca-portal-signing$/ { print kind, name }')"
[ "$mounting" = "Deployment sca-portal-projects" ] || die "the signing key must be mounted by the projects Deployment alone, not: $mounting"
grep -q 'value: "/etc/sca-portal/signing/signing.key"' \
  <<<"$(helm template sca-portal "$CHART" --values "$VALUES/ci-values.yaml" --show-only templates/services.yaml)" ||
  die "SIGNING_KEY_PATH must name the mounted key file"
# Keyless signing (docs/signing.md, "Keyless"): the service-account token projected for the CA's audience into the
# projects pods alone, SIGNING_OIDC_TOKEN_PATH naming it.
log "helm template: keyless signing projects the identity token into the projects pods alone"
keyless=(--set signing.existingSecret= --set signing.passwordEncryptedKey= --set signing.keyless.enabled=true
  --set signing.keyless.caUrl=https://fulcio.example.internal --set signing.keyless.oidcIssuer=https://kubernetes.default.svc)
keylessRender="$(helm template sca-portal "$CHART" --values "$VALUES/ci-values.yaml" "${keyless[@]}")"
projecting="$(awk '/^kind:/ { kind = $2 } /^  name: sca-portal-/ { name = $2 } /audience: sigstore$/ { print kind, name }' \
  <<<"$keylessRender")"
[ "$projecting" = "Deployment sca-portal-projects" ] ||
  die "the identity token must be projected into the projects Deployment alone, not: $projecting"
grep -q 'value: "/var/run/sca-portal/identity/token"' <<<"$keylessRender" ||
  die "SIGNING_OIDC_TOKEN_PATH must name the projected token"
# Metrics (docs/deploy.md, "Metrics"): every service serves them on a port of its own, and each component has a
# ServiceMonitor unless its services.<service>.metrics turns it off (ci-values: the notifier's), with its own settings.
log "helm template: a metrics port on every service, a ServiceMonitor per component"
monitored="$(helm template sca-portal "$CHART" --values "$VALUES/ci-values.yaml" --show-only templates/servicemonitor.yaml)"
[ "$(grep -c '^kind: ServiceMonitor$' <<<"$monitored")" = 7 ] ||
  die "the all-features rendering must have a ServiceMonitor for each component but the notifier"
! grep -q 'component: notifier' <<<"$monitored" || die "services.notifier.metrics turned its ServiceMonitor off"
grep -A20 'name: sca-portal-scanner-runner$' <<<"$monitored" | grep -q 'interval: 60s' ||
  die "the scanner-runner's ServiceMonitor must take its own interval"
deployments="$(helm template sca-portal "$CHART" --values "$VALUES/ci-values.yaml" --show-only templates/services.yaml)"
[ "$(grep -c '^            - name: metrics$' <<<"$deployments")" = 8 ] ||
  die "every service's Deployment must have a metrics port with metrics.enabled"
[ "$(grep -A1 'name: METRICS_PORT$' <<<"$deployments" | grep -c 'value: "9090"')" = 8 ] ||
  die "every service must be told its METRICS_PORT"
# Traces (docs/deploy.md, "Traces"): off by default; with tracing.otlpEndpoint the gateway alone is told the
# collector and its NetworkPolicy reaches it.
log "helm template: OpenTelemetry trace export only when asked for, to the gateway"
! helm template sca-portal "$CHART" | grep -q OTEL_EXPORTER_OTLP_ENDPOINT || die "tracing must be off by default"
[ "$(grep -c 'name: OTEL_EXPORTER_OTLP_ENDPOINT$' <<<"$deployments")" = 1 ] ||
  die "with tracing.otlpEndpoint the gateway, and only it, must get OTEL_EXPORTER_OTLP_ENDPOINT"
helm template sca-portal "$CHART" --values "$VALUES/ci-values.yaml" --show-only templates/networkpolicy.yaml |
  grep -A60 'name: sca-portal-gateway$' | grep -q 'port: 4318,' || die "the gateway's NetworkPolicy must reach the collector"
# Gateway API (docs/deploy.md, "Gateway API"): the HTTPRoute serves the API's prefix from the gateway and the rest
# from the web UI, as the two Ingresses do.
log "helm template: the HTTPRoute routes the API and the web UI"
route="$(helm template sca-portal "$CHART" --values "$VALUES/ci-values.yaml" --show-only templates/httproute.yaml)"
[ "$(grep -A1 '^        - name: ' <<<"$route" | awk '/name:/ { name = $3 } /port:/ { print name, $2 }' | tr '\n' ' ')" = \
  "sca-portal-gateway 8080 sca-portal-frontend 8080 " ] || die "the HTTPRoute must send /api to the gateway and / to the web UI"
grep -q '^            value: /$' <<<"$route" || die "the HTTPRoute's web UI rule must match the prefix /"

# Network (docs/deploy.md, "Network"): a component reaches Redis only when it reads REDIS_URL, the S3 store only
# when it uses the artefact store, and the scanner-runner's allow-list leaves out private and link-local addresses.
log "helm template: each NetworkPolicy reaches what its component uses"
policy_of() { # component [helm flags...]: that component's NetworkPolicy
  local component=$1; shift
  helm template sca-portal "$CHART" "$@" --show-only templates/networkpolicy.yaml |
    awk -v want="sca-portal-$component" '/^---/ { doc = "" } /^  name: / && !doc { doc = $2 } doc == want'
}
for component in scanner-runner policy; do
  ! policy_of "$component" | grep -q 'port: 6379,' || die "$component reads no REDIS_URL: its NetworkPolicy must not reach Redis"
done
for component in gateway identity projects admin; do
  policy_of "$component" | grep -q 'port: 6379,' || die "$component reads REDIS_URL: its NetworkPolicy must reach Redis"
done
policy_of admin --values "$VALUES/ci-values.yaml" | grep -q 'port: 9000, protocol: TCP' ||
  die "admin copies the artefact store into its backups: with the s3 backend its NetworkPolicy must reach it"
grep -q -- '- 169.254.0.0/16$' <<<"$(policy_of scanner-runner)" ||
  die "the scanner-runner's allow-list must leave out the link-local range (the cloud metadata address)"
# Secrets (docs/deploy.md, "Secrets each pod gets"): a pod gets only the secret keys its process reads, each
# service its own database role's DSN (services.<service>.database), the migration Job alone the admin's DSN.
log "helm template: each pod gets only the secrets it reads"
secret_env() { # component [helm flags...]: "<ENV> <secret>/<key>" per variable read from a Secret by its Deployment
  local component=$1; shift
  helm template sca-portal "$CHART" "$@" --show-only templates/services.yaml |
    awk -v want="sca-portal-$component" '/^---/ { doc = "" } /^  name: / && !doc { doc = $2 }
      doc == want && /^ *- name: [A-Z0-9_]+$/ { env = $3 }
      doc == want && /secretKeyRef:/ { ref = 1; next }
      doc == want && ref && /name: / { secret = $2; next }
      doc == want && ref && /key: / { print env, secret "/" $2; ref = 0 }' | sort
}
runner="$(secret_env scanner-runner --values "$VALUES/ci-values.yaml")"
[ "$(cut -d' ' -f1 <<<"$runner" | tr '\n' ' ')" = "ARTEFACT_S3_ACCESS_KEY_ID ARTEFACT_S3_SECRET_ACCESS_KEY DATABASE_URL SECRET_KEY " ] ||
  die "the scanner-runner must get its DSN, SECRET_KEY and the artefact store's keys alone, not: $runner"
grep -qx 'DATABASE_URL sca-portal/DATABASE_URL_SCANNER_RUNNER' <<<"$runner" ||
  die "the scanner-runner's DATABASE_URL must be its own role's (services.scanner-runner.database), not: $runner"
! grep -q 'sca-portal-db-' <<<"$runner" || die "the scanner-runner must get no other service's database credentials"
[ "$(secret_env identity --values "$VALUES/ci-values.yaml" | grep '^DATABASE_URL ')" = "DATABASE_URL sca-portal-db-identity/uri" ] ||
  die "identity's DATABASE_URL must come from services.identity.database.existingSecret"
! secret_env scanner-runner | grep -q '^REDIS_URL ' || die "the scanner-runner does not read REDIS_URL and must not get it"
[ -z "$(secret_env gateway | grep -E '^(DATABASE_URL|DATABASE_ADMIN_URL) ')" ] || die "the gateway owns no schema: no DSN"
for component in gateway identity projects scan-orchestrator scanner-runner policy notifier admin; do
  ! secret_env "$component" --values "$VALUES/ci-values.yaml" | grep -q '^DATABASE_ADMIN_URL ' ||
    die "$component must not get DATABASE_ADMIN_URL: the migration Job alone makes the roles"
done
migrate="$(helm template sca-portal "$CHART" --values "$VALUES/ci-values.yaml" --show-only templates/migrations.yaml)"
[ "$(grep -c 'name: DATABASE_ADMIN_URL$' <<<"$migrate")" = 7 ] ||
  die "every migration container must get DATABASE_ADMIN_URL with postgresql.admin"
! helm template sca-portal "$CHART" --show-only templates/migrations.yaml | grep -q DATABASE_ADMIN_URL ||
  die "without postgresql.admin no migration container may get DATABASE_ADMIN_URL"
# The migration Job's ServiceAccount (docs/deploy.md, "What the chart deploys"): its own, without its token, made as
# a hook before the Job (a pre-install hook runs before the release's ordinary objects exist).
log "helm template: the migration Job runs under its own ServiceAccount, made before it"
migration_sa() { # [helm flags...]: "<Job's serviceAccountName> <its automount> <the ServiceAccount's hook> <weight> <automount>"
  helm template sca-portal "$CHART" "$@" --show-only templates/migrations.yaml --show-only templates/serviceaccounts.yaml |
    awk '/^---/ { kind = ""; doc = "" } /^kind:/ { kind = $2 } /^  name: / && !doc { doc = $2 }
      kind == "Job" && /^      serviceAccountName:/ { job = $2 } kind == "Job" && /^      automountServiceAccountToken:/ { jobToken = $2 }
      kind == "ServiceAccount" && doc == "sca-portal-migrate" && /helm.sh\/hook:/ { hook = $2 }
      kind == "ServiceAccount" && doc == "sca-portal-migrate" && /helm.sh\/hook-weight:/ { weight = $2 }
      kind == "ServiceAccount" && doc == "sca-portal-migrate" && /^automountServiceAccountToken:/ { token = $2 }
      END { print job, jobToken, hook, weight, token }'
}
[ "$(migration_sa)" = 'sca-portal-migrate false pre-install,pre-upgrade "-10" false' ] ||
  die "the migration Job must run under its own ServiceAccount, a hook made before it, without a token, not: $(migration_sa)"
! helm template sca-portal "$CHART" --set serviceAccount.create=false --show-only templates/migrations.yaml |
  grep -q serviceAccountName || die "without serviceAccount.create the migration Job must name no ServiceAccount"
# envFromSecrets reach every process, services.<service>.envFromSecrets that service's alone (and its migration).
env_from() { # component [helm flags...]: the Secrets its Deployment's envFrom names
  local component=$1; shift
  helm template sca-portal "$CHART" "$@" --show-only templates/services.yaml |
    awk -v want="sca-portal-$component" '/^---/ { doc = "" } /^  name: / && !doc { doc = $2 }
      doc == want && /secretRef:/ { ref = 1; next } doc == want && ref { print $2; ref = 0 }' | tr '\n' ' '
}
[ "$(env_from notifier --values "$VALUES/ci-values.yaml")" = "sca-portal-metrics sca-portal-smtp " ] ||
  die "the notifier must get envFromSecrets and its own services.notifier.envFromSecrets"
[ "$(env_from scanner-runner --values "$VALUES/ci-values.yaml")" = "sca-portal-metrics " ] ||
  die "the scanner-runner must not get the notifier's own envFromSecrets"
grep -q 'name: sca-portal-smtp$' <<<"$migrate" || die "the notifier's migration container must get its own envFromSecrets"
chart_secret="$(helm template sca-portal "$CHART" --values "$VALUES/ci-values.yaml" --show-only templates/secret.yaml)"
grep -q '^  DATABASE_URL_SCANNER_RUNNER: ' <<<"$chart_secret" && ! grep -q '^  DATABASE_URL: ' <<<"$chart_secret" ||
  die "the chart's Secret must hold the scanner-runner's own DSN, and no shared one that is read from an existing Secret"
# Rolling pods when SECRET_KEY changes (docs/deploy.md, "Secrets"): a new value, or a new existing Secret's name
# (what a render without the cluster can see), changes every service pod's checksum/secret.
log "helm template: a changed SECRET_KEY rolls the pods"
checksum() { # [helm flags...]: the gateway pods' checksum/secret
  helm template sca-portal "$CHART" "$@" --show-only templates/services.yaml | grep -m1 'checksum/secret:'
}
key=0123456789abcdef0123456789abcdef
[ "$(checksum --set secretKey.value=$key)" != "$(checksum --set secretKey.value=${key}x)" ] ||
  die "a new secretKey.value must change the pods' checksum/secret"
[ "$(checksum --values "$VALUES/production-values.yaml")" != \
  "$(checksum --values "$VALUES/production-values.yaml" --set secretKey.existingSecret=sca-portal-secret-key-2)" ] ||
  die "naming another secretKey.existingSecret must change the pods' checksum/secret"
# The Tiltfile deploys the dev rendering; its image inputs are checked with it.
bash "$ROOT/scripts/check-tiltfile.sh"
log "kubeconform: a rendering with a mistyped field must fail"
! render default 2>/dev/null | sed '0,/^  replicas:/s//  replicass:/' | conform "mistyped" 2>/dev/null ||
  die "kubeconform accepted a Deployment with a mistyped field (replicass)"
log "helm template: values the chart must refuse"
refuse "the production profile with the development defaults" --set production=true
refuse "the production profile with the development Kafka brokers" --values "$VALUES/production-values.yaml" \
  --set 'kafka.brokers={kafka:9092}'
refuse "the production profile with a generated SECRET_KEY" --values "$VALUES/production-values.yaml" \
  --set secretKey.existingSecret=
refuse "a mistyped value (runAsNonRoot: flase)" --set podSecurityContext.runAsNonRoot=flase
refuse "an unknown top-level key" --set replicas=3
refuse "an environment key no process reads (SMTP_HOSTT)" --set env.SMTP_HOSTT=smtp.example.com
refuse "a secret key in env instead of a Secret (SMTP_PASSWORD)" --set env.SMTP_PASSWORD=hunter2
# Typed env values (docs/deploy.md, "Environment keys"): values.schema.json refuses what the key's parser would, and
# names the key (APP_ENV is also one the chart derives: the schema must refuse it before the template does).
refuse_value() { # what KEY=value [helm flags...]: the schema must refuse env.KEY=value, naming the key
  local what=$1 assignment=$2 out; shift 2
  out="$(helm template sca-portal "$CHART" --set "env.$assignment" "$@" 2>&1 >/dev/null || true)"
  grep -q "at '/env/${assignment%%=*}'" <<<"$out" || die "values.schema.json must refuse $what (env.$assignment), not: $out"
}
refuse_value "a mistyped integer" SCAN_LEASE_SECONDS=lots
refuse_value "an integer below its minimum" SCAN_LEASE_SECONDS=29
refuse_value "an integer above its maximum" SMTP_PORT=65536
refuse_value "a value outside its enum" APP_ENV=production
refuse_value "a misspelt boolean" AUTH_SELF_REGISTRATION=ture
refuse_value "a URL the http(s) parser refuses" SCM_API_URL=ftp://example.com
log "helm template: env values given as YAML numbers and booleans render as the strings the parsers read"
typed="$(helm template sca-portal "$CHART" --show-only templates/services.yaml \
  --values /dev/stdin <<<'env: { SCAN_LEASE_SECONDS: 300, RPC_READ_MAX_BYTES: 1048576, AUTH_SELF_REGISTRATION: true, WEBSOCKET_AUTH_TIMEOUT_SECONDS: 0.5 }')" ||
  die "the chart must render integer, boolean and number env values given as YAML"
for pair in SCAN_LEASE_SECONDS=300 RPC_READ_MAX_BYTES=1048576 AUTH_SELF_REGISTRATION=true WEBSOCKET_AUTH_TIMEOUT_SECONDS=0.5; do
  grep -A1 "name: ${pair%%=*}$" <<<"$typed" | grep -q "value: \"${pair#*=}\"$" ||
    die "env.${pair%%=*} must render as the string \"${pair#*=}\" (a YAML 1048576 is a float64 that toString writes 1.048576e+06)"
done
refuse "a lane minimum on a lane no pod runs" --set keda.enabled=true --set keda.lanes.automatic.minSlots=1 \
  --set 'services.scanner-runner.slots.automatic=0'
refuse "KEDA's maximum below the lanes' minimum" --set keda.enabled=true --set keda.lanes.manual.minSlots=20
refuse "a sealed signing-key password without the signing Secret" --set signing.passwordEncryptedKey=password
refuse "a misspelt key of a service's own database (services.identity.database.urll)" \
  --set 'services.identity.database.urll=postgresql://identity@db/sca'
refuse "an administrator's DSN that is not PostgreSQL's" --set postgresql.admin.url=mysql://root@db/sca
refuse "SIGNING_KEY_PATH in env while the chart mounts the key" --set signing.existingSecret=signing \
  --set env.SIGNING_KEY_PATH=/elsewhere/signing.key
refuse "keyless signing without its CA and issuer" --set signing.keyless.enabled=true
refuse "keyless signing and a signing key at once" --set signing.existingSecret=signing \
  --set signing.keyless.enabled=true --set signing.keyless.caUrl=https://fulcio.example.internal \
  --set signing.keyless.oidcIssuer=https://kubernetes.default.svc
