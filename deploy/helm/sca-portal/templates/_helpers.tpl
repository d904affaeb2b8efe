{{/* The release's name prefix: the release name, plus the chart name unless the release name contains it. */}}
{{- define "sca-portal.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* The Deployment and Service name of a service. Call with (list $ "<service>"). */}}
{{- define "sca-portal.serviceName" -}}
{{- printf "%s-%s" (include "sca-portal.fullname" (index . 0)) (index . 1) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "sca-portal.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* Labels selecting one service's pods. Call with (list $ "<service>"). */}}
{{- define "sca-portal.selectorLabels" -}}
{{- $ := index . 0 -}}
app.kubernetes.io/name: {{ $.Chart.Name }}
app.kubernetes.io/instance: {{ $.Release.Name }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end -}}

{{/* Call with (list $ "<service>"). */}}
{{- define "sca-portal.image" -}}
{{- $ := index . 0 -}}
{{- printf "%s/%s:%s" $.Values.image.repository (index . 1) ($.Values.image.tag | default $.Chart.AppVersion) -}}
{{- end -}}

{{/*
A secretKeyRef for SECRET_KEY, DATABASE_URL or REDIS_URL: the existing Secret when configured, else the chart's.
Call with (list $ .Values.<block> "<KEY>").
*/}}
{{- define "sca-portal.secretKeyRef" -}}
{{- $ := index . 0 -}}
{{- $config := index . 1 -}}
secretKeyRef:
  {{- if $config.existingSecret }}
  name: {{ $config.existingSecret }}
  key: {{ $config.existingSecretKey }}
  {{- else }}
  name: {{ include "sca-portal.fullname" $ }}
  key: {{ index . 2 }}
  {{- end }}
{{- end -}}

{{/* The keys every process (services and migrations) gets from the chart's values. */}}
{{- define "sca-portal.derivedEnv" -}}
- name: APP_ENV
  value: {{ .Values.appEnv | quote }}
- name: LOG_LEVEL
  value: {{ .Values.logLevel | quote }}
- name: DOMAIN
  value: {{ .Values.domain | quote }}
- name: CORS_ALLOWED_ORIGINS
  value: {{ .Values.corsAllowedOrigins | default (list (printf "https://%s" .Values.domain)) | join "," | quote }}
- name: PASSWORD_RESET_BASE_URL
  value: {{ .Values.passwordResetBaseUrl | default (printf "https://%s/reset-password" .Values.domain) | quote }}
- name: KAFKA_BROKERS
  value: {{ .Values.kafka.brokers | join "," | quote }}
- name: KAFKA_TOPIC_PREFIX
  value: {{ .Values.kafka.topicPrefix | default "" | quote }}
- name: RPC_HOST
  value: "0.0.0.0"
{{- with .Values.gate }}
- name: GATE_MALICIOUS_ENABLED
  value: {{ .maliciousEnabled | quote }}
{{- if ne (toString .epssThreshold) "" }}
- name: GATE_EPSS_THRESHOLD
  value: {{ .epssThreshold | toString | quote }}
{{- end }}
- name: GATE_EPSS_ON_MISSING_DATA
  value: {{ .epssOnMissingData | quote }}
{{- end }}
{{- with .Values.sourceScans }}
- name: SCAN_GIT_ALLOWED_HOSTS
  value: {{ .gitAllowedHosts | default list | join "," | quote }}
- name: SCAN_CLONE_TIMEOUT_SECONDS
  value: {{ .cloneTimeoutSeconds | quote }}
- name: SCAN_CLONE_MAX_BYTES
  value: {{ .cloneMaxBytes | int64 | quote }}
- name: SOURCE_ARCHIVE_MAX_ENTRIES
  value: {{ .archiveMaxEntries | int64 | quote }}
- name: SOURCE_ARCHIVE_MAX_EXPANDED_BYTES
  value: {{ .archiveMaxExpandedBytes | int64 | quote }}
- name: CDXGEN_TIMEOUT_SECONDS
  value: {{ .cdxgenTimeoutSeconds | quote }}
- name: CDXGEN_PRESTART_ENABLED
  value: {{ .cdxgenPrestart | quote }}
- name: SCAN_TOOL_MEMORY_MB
  value: {{ .toolMemoryMb | quote }}
- name: SCAN_TOOL_OUTPUT_MAX_BYTES
  value: {{ .toolOutputMaxBytes | int64 | quote }}
- name: SCAN_WORK_DIR
  value: {{ .workDir | quote }}
{{- end }}
{{- with .Values.scancode }}
- name: SCANCODE_TIMEOUT_SECONDS
  value: {{ .timeoutSeconds | quote }}
- name: SCANCODE_MAX_FILES
  value: {{ .maxFiles | int64 | quote }}
- name: SCANCODE_MAX_DETECTIONS
  value: {{ .maxDetections | int64 | quote }}
- name: SCANCODE_MAX_RESULT_BYTES
  value: {{ .maxResultBytes | int64 | quote }}
{{- end }}
{{- with .Values.containerScans }}
- name: SCAN_REGISTRY_ALLOWED_HOSTS
  value: {{ .registryAllowedHosts | default list | join "," | quote }}
- name: SCAN_REGISTRY_PLAIN_HTTP_HOSTS
  value: {{ .registryPlainHttpHosts | default list | join "," | quote }}
- name: SCAN_IMAGE_PULL_TIMEOUT_SECONDS
  value: {{ .pullTimeoutSeconds | quote }}
- name: SCAN_IMAGE_MAX_BYTES
  value: {{ .imageMaxBytes | int64 | quote }}
- name: SCAN_IMAGE_MAX_EXPANDED_BYTES
  value: {{ .imageMaxExpandedBytes | int64 | quote }}
- name: SCAN_IMAGE_MAX_ENTRIES
  value: {{ .imageMaxEntries | int64 | quote }}
- name: SCAN_IMAGE_PLATFORM
  value: {{ .platform | quote }}
{{- end }}
{{- with .Values.scanInventory }}
- name: SCAN_SCOPE_FILTER_ENABLED
  value: {{ .scopeFilter | quote }}
- name: SCAN_SCOPE_FILTER_MAVEN_ENABLED
  value: {{ .scopeFilterMaven | quote }}
- name: SCAN_SCOPE_FILTER_NODE_ENABLED
  value: {{ .scopeFilterNode | quote }}
- name: LICENSE_FETCH_ENABLED
  value: {{ .licenseFetch | quote }}
- name: LICENSE_FETCH_TIMEOUT_SECONDS
  value: {{ .licenseFetchTimeoutSeconds | quote }}
- name: LICENSE_FETCH_CONCURRENCY
  value: {{ .licenseFetchConcurrency | quote }}
- name: LICENSE_FETCH_STAGE_SECONDS
  value: {{ .licenseFetchStageSeconds | quote }}
- name: REGISTRY_LOOKUP_WAIT_SECONDS
  value: {{ .registryLookupWaitSeconds | quote }}
- name: FINGERPRINT_ENABLED
  value: {{ .fingerprint | quote }}
{{- with .fingerprintApiUrl }}
- name: FINGERPRINT_API_URL
  value: {{ . | quote }}
{{- end }}
- name: FINGERPRINT_TIMEOUT_SECONDS
  value: {{ .fingerprintTimeoutSeconds | quote }}
{{- end }}
{{- range $name, $service := omit .Values.services "gateway" }}
- name: {{ printf "%s_RPC_URL" ($name | upper | replace "-" "_") }}
  value: {{ printf "http://%s:%v" (include "sca-portal.serviceName" (list $ $name)) $service.port | quote }}
{{- end }}
{{- include "sca-portal.artefactEnv" . }}
{{- end -}}

{{/*
The secret keys of the chart's values a component reads, and only those (docs/deploy.md, "Secrets each pod gets"):
SECRET_KEY every service's process (the runtime's base keys: caller tokens, the services' own calls, secret boxes;
the migration Job loads them too), DATABASE_URL the schema's owner alone and its own (`sca-portal.databaseUrlRef`),
DATABASE_ADMIN_URL the migration Job alone, REDIS_URL those that reach Redis (`sca-portal.reaches`), the artefact
store's credentials its users (`sca-portal.artefactUsers`, and their migrations, which load the same keys).
Call with (list $ "<component>" "<schema owner>"): the owner is the service whose schema it uses (the migration
Job's container of that service); the component itself when left out.
*/}}
{{- define "sca-portal.secretEnv" -}}
{{- $ := index . 0 -}}
{{- $component := index . 1 -}}
{{- $owner := $component -}}
{{- if gt (len .) 2 }}{{ $owner = index . 2 }}{{ end -}}
{{- if or (hasKey $.Values.services $component) (eq $component "migrate") }}
- name: SECRET_KEY
  valueFrom:
    {{- include "sca-portal.secretKeyRef" (list $ $.Values.secretKey "SECRET_KEY") | nindent 4 }}
{{- end }}
{{- if has "postgresql" (index (include "sca-portal.reaches" $ | fromJson) $owner | default list) }}
- name: DATABASE_URL
  valueFrom:
    {{- include "sca-portal.databaseUrlRef" (list $ $owner) | nindent 4 }}
{{- end }}
{{- if and (eq $component "migrate") (include "sca-portal.provisionsRoles" $) }}
- name: DATABASE_ADMIN_URL
  valueFrom:
    {{- include "sca-portal.secretKeyRef" (list $ $.Values.postgresql.admin "DATABASE_ADMIN_URL") | nindent 4 }}
{{- end }}
{{- if has "redis" (index (include "sca-portal.reaches" $ | fromJson) $component | default list) }}
- name: REDIS_URL
  valueFrom:
    {{- include "sca-portal.secretKeyRef" (list $ $.Values.redis "REDIS_URL") | nindent 4 }}
{{- end }}
{{- if has $owner (include "sca-portal.artefactUsers" $ | fromJsonArray) }}
{{- include "sca-portal.artefactSecretEnv" $ }}
{{- end }}
{{- end -}}

{{/* "true" when the migration Job makes a database role per service (postgresql.admin given). */}}
{{- define "sca-portal.provisionsRoles" -}}
{{- with $.Values.postgresql.admin }}{{ if or .existingSecret .url }}true{{ end }}{{ end -}}
{{- end -}}

{{/* A service's own database settings (services.<service>.database), empty when it uses postgresql's DSN. */}}
{{- define "sca-portal.ownDatabase" -}}
{{- $own := (index (index . 0).Values.services (index . 1) | default dict).database | default dict -}}
{{- if or $own.existingSecret $own.url }}{{ $own | toJson }}{{ end -}}
{{- end -}}

{{/* The chart Secret's key of a service's own DATABASE_URL: DATABASE_URL_<SERVICE>. */}}
{{- define "sca-portal.databaseUrlKey" -}}
{{- printf "DATABASE_URL_%s" (. | upper | replace "-" "_") -}}
{{- end -}}

{{/*
The secretKeyRef of a service's DATABASE_URL: its own role's (services.<service>.database) when given, else
postgresql's, the one DSN of a single-role install. Call with (list $ "<service>").
*/}}
{{- define "sca-portal.databaseUrlRef" -}}
{{- $ := index . 0 -}}
{{- $name := index . 1 -}}
{{- with include "sca-portal.ownDatabase" . }}
{{- $own := fromJson . }}
{{- include "sca-portal.secretKeyRef" (list $ (dict "existingSecret" ($own.existingSecret | default "") "existingSecretKey" ($own.existingSecretKey | default "DATABASE_URL")) (include "sca-portal.databaseUrlKey" $name)) }}
{{- else }}
{{- include "sca-portal.secretKeyRef" (list $ $.Values.postgresql "DATABASE_URL") }}
{{- end }}
{{- end -}}

{{/* "true" when some schema's owner uses postgresql's DSN (not one of its own). */}}
{{- define "sca-portal.sharedDatabaseUsed" -}}
{{- $ := . -}}
{{- $reaches := include "sca-portal.reaches" $ | fromJson -}}
{{- range $name, $_ := $.Values.services }}
{{- if and (has "postgresql" (index $reaches $name | default list)) (not (include "sca-portal.ownDatabase" (list $ $name))) }}true{{ end }}
{{- end -}}
{{- end -}}

{{/*
The environment of a process (a service, a migration): the derived keys, its own, the secrets it reads, then `env`. A
key of `env` the chart already derives from a value is refused (a duplicated variable is ambiguous: set the value
instead); values.schema.json types each value by the key's parser (scripts/config-reference.ts writes it). Call with (list $ "<component>"), or (list $ "migrate" "<service>") for a migration container.
*/}}
{{- define "sca-portal.env" -}}
{{- $ := index . 0 -}}
{{- $derived := printf "%s\n%s\n%s" (include "sca-portal.derivedEnv" $) (include "sca-portal.componentEnv" .) (include "sca-portal.secretEnv" .) -}}
{{- range (fromYamlArray $derived) }}
{{- if hasKey $.Values.env .name }}
{{- fail (printf "env.%s: the chart sets %s from its values (docs/deploy.md, \"Values reference\"); set it there" .name .name) }}
{{- end }}
{{- end }}
{{- $derived }}
{{- range $key, $value := $.Values.env }}
{{- /* Environment values are strings. A YAML number reaches the template as a float64, which toString writes as
1.048576e+06 (an integer key's parser refuses that): JSON writes a number as it was written. */}}
- name: {{ $key }}
  value: {{ kindIs "string" $value | ternary $value (toJson $value) | quote }}
{{- end }}
{{- end -}}

{{/*
The services that read or write the artefact store (and so mount its volume with the directory backend): those that
reach "s3" in `sca-portal.reaches`, the store's server with the s3 backend.
*/}}
{{- define "sca-portal.artefactUsers" -}}
{{- $users := list -}}
{{- range $name, $servers := include "sca-portal.reaches" . | fromJson }}{{ if has "s3" $servers }}{{ $users = append $users $name }}{{ end }}{{ end -}}
{{- $users | toJson -}}
{{- end -}}

{{/* The artefact store's keys (every process loads the same, so migrations validate them too). */}}
{{- define "sca-portal.artefactEnv" -}}
{{- $a := .Values.artefacts }}
{{- if not (has $a.backend (list "directory" "s3")) }}
{{- fail (printf "artefacts.backend must be directory or s3, not %q" $a.backend) }}
{{- end }}
- name: ARTEFACT_BACKEND
  value: {{ $a.backend | quote }}
- name: ARTEFACT_DIR
  value: {{ $a.directory.mountPath | quote }}
{{- if eq $a.backend "s3" }}
{{- if not $a.s3.bucket }}
{{- fail "artefacts.s3.bucket is required with artefacts.backend s3" }}
{{- end }}
- name: ARTEFACT_S3_BUCKET
  value: {{ $a.s3.bucket | quote }}
- name: ARTEFACT_S3_REGION
  value: {{ $a.s3.region | quote }}
- name: ARTEFACT_S3_FORCE_PATH_STYLE
  value: {{ $a.s3.forcePathStyle | toString | quote }}
- name: ARTEFACT_S3_QUOTA_BYTES
  value: {{ $a.s3.quotaBytes | int64 | toString | quote }}
{{- with $a.s3.endpoint }}
- name: ARTEFACT_S3_ENDPOINT
  value: {{ . | quote }}
{{- end }}
{{- end }}
{{- end -}}

{{/* The artefact store's credentials (s3 with keys), for the artefact store's users alone (sca-portal.secretEnv). */}}
{{- define "sca-portal.artefactSecretEnv" -}}
{{- $a := .Values.artefacts }}
{{- if and (eq $a.backend "s3") (or $a.s3.existingSecret $a.s3.accessKeyId) }}
- name: ARTEFACT_S3_ACCESS_KEY_ID
  valueFrom:
    secretKeyRef:
      name: {{ $a.s3.existingSecret | default (include "sca-portal.fullname" .) }}
      key: {{ ternary $a.s3.accessKeyIdKey "ARTEFACT_S3_ACCESS_KEY_ID" (ne $a.s3.existingSecret "") }}
- name: ARTEFACT_S3_SECRET_ACCESS_KEY
  valueFrom:
    secretKeyRef:
      name: {{ $a.s3.existingSecret | default (include "sca-portal.fullname" .) }}
      key: {{ ternary $a.s3.secretAccessKeyKey "ARTEFACT_S3_SECRET_ACCESS_KEY" (ne $a.s3.existingSecret "") }}
{{- end }}
{{- end -}}

{{/* The claim of the directory backend's volume. */}}
{{- define "sca-portal.artefactClaim" -}}
{{- .Values.artefacts.directory.existingClaim | default (printf "%s-artefacts" (include "sca-portal.fullname" .)) -}}
{{- end -}}

{{/* The claim of admin's backups volume (BACKUP_DIR). */}}
{{- define "sca-portal.backupClaim" -}}
{{- .Values.backups.existingClaim | default (printf "%s-backups" (include "sca-portal.fullname" .)) -}}
{{- end -}}

{{/*
envFrom of a service's processes (its pods and its migration container): the Secrets named in envFromSecrets, which
every process gets, then those in services.<service>.envFromSecrets, which that service's alone gets. Call with
(list $ "<service>").
*/}}
{{- define "sca-portal.envFrom" -}}
{{- $ := index . 0 -}}
{{- $own := (index $.Values.services (index . 1) | default dict).envFromSecrets | default list -}}
{{- with concat ($.Values.envFromSecrets | default list) $own | uniq -}}
envFrom:
  {{- range . }}
  - secretRef:
      name: {{ . }}
  {{- end }}
{{- end -}}
{{- end -}}

{{/*
Pod-level settings of a component's pods (or the migration Job's): its ServiceAccount (when the chart makes one),
security context and scheduling (each services.<component>.<key> over the top-level <key>). Call with
(list $ "<component>").
*/}}
{{- define "sca-portal.podSettings" -}}
{{- $ := index . 0 -}}
{{- $name := index . 1 -}}
{{- $sa := (include "sca-portal.setting" (list $ $name "serviceAccount") | fromJson).v -}}
{{- /* No service talks to the Kubernetes API; a workload identity (IRSA, GKE, Azure) reads its own projected token. */ -}}
automountServiceAccountToken: {{ $sa.automount }}
{{- if and $sa.create (or (eq $name "migrate") (has $name (include "sca-portal.deployedComponents" $ | fromJsonArray))) }}
serviceAccountName: {{ include "sca-portal.serviceName" (list $ $name) }}
{{- end }}
# Service links would add <SERVICE>_PORT-style variables for every Service in the namespace.
enableServiceLinks: false
securityContext:
  {{- toYaml (include "sca-portal.setting" (list $ $name "podSecurityContext") | fromJson).v | nindent 2 }}
{{- with $.Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- range $key := list "nodeSelector" "tolerations" "runtimeClassName" "priorityClassName" }}
{{- with (include "sca-portal.setting" (list $ $name $key) | fromJson).v }}
{{ $key }}:
  {{- if kindIs "string" . }} {{ . }}{{ else }}{{ toYaml . | nindent 2 }}{{ end }}
{{- end }}
{{- end }}
{{- end -}}

{{/*
A Deployment's pod affinity: the component's `affinity` in values, plus the chart's spreading of its pods over nodes
(`podAntiAffinity`: soft, hard or none) unless that affinity brings a podAntiAffinity. Call with (list $ "<component>").
*/}}
{{- define "sca-portal.affinity" -}}
{{- $ := index . 0 -}}
{{- $name := index . 1 -}}
{{- $mode := $.Values.podAntiAffinity -}}
{{- if not (has $mode (list "soft" "hard" "none")) -}}
{{- fail (printf "podAntiAffinity must be soft, hard or none, not %q" $mode) -}}
{{- end -}}
{{- $affinity := (include "sca-portal.setting" (list $ $name "affinity") | fromJson).v | default dict -}}
{{- if and (ne $mode "none") (not (hasKey $affinity "podAntiAffinity")) -}}
{{- $term := dict "topologyKey" "kubernetes.io/hostname" "labelSelector" (dict "matchLabels" (include "sca-portal.selectorLabels" (list $ $name) | fromYaml)) -}}
{{- if eq $mode "hard" -}}
{{- $_ := set $affinity "podAntiAffinity" (dict "requiredDuringSchedulingIgnoredDuringExecution" (list $term)) -}}
{{- else -}}
{{- $_ := set $affinity "podAntiAffinity" (dict "preferredDuringSchedulingIgnoredDuringExecution" (list (dict "weight" 100 "podAffinityTerm" $term))) -}}
{{- end -}}
{{- end -}}
{{- with $affinity -}}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end -}}
{{- end -}}

{{/*
A server container's preStop pause: on SIGTERM a server stops taking requests and drains; the pause first lets
endpoints and the ingress stop sending it new ones, which they learn of a moment after the pod starts terminating.
*/}}
{{- define "sca-portal.preStop" -}}
lifecycle:
  preStop:
    exec:
      command: ["sleep", {{ .Values.preStopSeconds | quote }}]
{{- end -}}

{{/* The components that run as Deployments (each with its own ServiceAccount): the services and the web UI. */}}
{{- define "sca-portal.deployedComponents" -}}
{{- $names := keys .Values.services | sortAlpha -}}
{{- if .Values.frontend.enabled }}{{ $names = append $names "frontend" }}{{ end -}}
{{- $names | toJson -}}
{{- end -}}

{{/* A component's container security context. Call with (list $ "<component>"). */}}
{{- define "sca-portal.securityContext" -}}
{{- toYaml (include "sca-portal.setting" (list (index . 0) (index . 1) "securityContext") | fromJson).v -}}
{{- end -}}

{{/*
A checksum of the secrets pods read, so they restart when one changes: what the chart's Secret is made from (a
generated SECRET_KEY is left out: it stays the same across upgrades) and the data of the existing Secrets named in
values, as far as `helm upgrade` can read them (`lookup`; a render without the cluster, as GitOps tools make, sees
none of it, so there a changed existing Secret needs a rollout restart).
*/}}
{{/* "true" when the component mounts the signing key (docs/signing.md): the projects service alone signs. */}}
{{- define "sca-portal.signingKeyMounted" -}}
{{- if and (eq (index . 1) "projects") (index . 0).Values.signing.existingSecret }}true{{ end -}}
{{- end -}}

{{/* "true" when the component signs keyless (docs/signing.md, "Keyless"): the projects service alone, with the
service-account token projected for the CA's audience. */}}
{{- define "sca-portal.signingKeyless" -}}
{{- if and (eq (index . 1) "projects") (index . 0).Values.signing.keyless.enabled }}true{{ end -}}
{{- end -}}

{{- define "sca-portal.secretChecksum" -}}
{{- $existing := list -}}
{{- $databases := dict -}}
{{- $ownSecrets := list -}}
{{- range $name, $service := .Values.services }}{{ $_ := set $databases $name ($service.database | default dict) }}{{ $ownSecrets = concat $ownSecrets ($service.envFromSecrets | default list) }}{{ end -}}
{{- $databaseSecrets := list -}}
{{- range $database := values $databases }}{{ $databaseSecrets = append $databaseSecrets ($database.existingSecret | default "") }}{{ end -}}
{{- range $name := concat (list .Values.secretKey.existingSecret .Values.postgresql.existingSecret .Values.redis.existingSecret .Values.artefacts.s3.existingSecret .Values.signing.existingSecret) $databaseSecrets .Values.envFromSecrets $ownSecrets | compact | uniq | sortAlpha -}}
{{- $existing = append $existing (dig "data" dict (lookup "v1" "Secret" $.Release.Namespace $name)) -}}
{{- end -}}
{{- list .Values.secretKey .Values.postgresql .Values.redis .Values.artefacts.s3 .Values.signing $databases $existing | toJson | sha256sum -}}
{{- end -}}

{{/*
One setting of a component, as JSON: services.<name>.<key> merged over the top-level <key> (maps merge key by key,
anything else replaces), so a platform team sets a default once and overrides it per component.
Call with (list $ "<component>" "<key>") and read `(... | fromJson).v`; a component outside `services` (the
migration Job, "migrate") gets the top-level value.
*/}}
{{- define "sca-portal.setting" -}}
{{- $ := index . 0 -}}
{{- $key := index . 2 -}}
{{- $own := index (index $.Values.services (index . 1) | default dict) $key -}}
{{- $default := index $.Values $key -}}
{{- if and (kindIs "map" $default) (or (kindIs "map" $own) (kindIs "invalid" $own)) -}}
{{- dict "v" (mergeOverwrite (deepCopy $default) ($own | default dict)) | toJson -}}
{{- else if kindIs "invalid" $own -}}
{{- dict "v" $default | toJson -}}
{{- else -}}
{{- dict "v" $own | toJson -}}
{{- end -}}
{{- end -}}

{{/*
A container's resources, with ephemeral storage requested and limited at the size of its /tmp emptyDir unless the
values give it: /tmp is all a container writes besides its (rotated) logs. Call with (list <resources> <tmp size>).
*/}}
{{- define "sca-portal.resources" -}}
{{- $r := deepCopy (index . 0) -}}
{{- $tmp := index . 1 -}}
{{- $_ := set $r "requests" (merge ($r.requests | default dict) (dict "ephemeral-storage" $tmp)) -}}
{{- $_ := set $r "limits" (merge ($r.limits | default dict) (dict "ephemeral-storage" $tmp)) -}}
{{- toYaml $r -}}
{{- end -}}

{{/*
The servers outside the release each service talks to (its NetworkPolicy's egress): what the code uses, not a
setting. Redis is reached by the components whose config.ts declares REDIS_URL (they alone get it), s3 by the
artefact store's users (`sca-portal.artefactUsers`). The addresses are networkPolicy.<server> in values; s3 counts
only with artefacts.backend s3, otlp only with tracing.otlpEndpoint.
*/}}
{{- define "sca-portal.reaches" -}}
{{- dict
    "gateway" (list "redis" "kafka" "s3" "otlp")
    "identity" (list "postgresql" "redis" "kafka")
    "projects" (list "postgresql" "redis" "kafka" "s3")
    "scan-orchestrator" (list "postgresql" "kafka" "s3")
    "scanner-runner" (list "postgresql" "kafka" "s3")
    "policy" (list "postgresql" "kafka")
    "notifier" (list "postgresql" "kafka")
    "admin" (list "postgresql" "redis" "kafka" "s3")
    "migrate" (list "postgresql" "kafka")
    "test" list
  | toJson -}}
{{- end -}}

{{/*
The services a service calls, for those not trusted to reach every pod of the release: the scanner-runner runs
tools on hostile code, so it reaches projects (inventory), identity and admin (registry logins) only; the migration
Job calls none, the `helm test` pod the gateway alone.
*/}}
{{- define "sca-portal.calls" -}}
{{- dict "scanner-runner" (list "projects" "identity" "admin") "migrate" list "test" (list "gateway") | toJson -}}
{{- end -}}

{{/* The keys one component gets besides the shared ones. Call with (list $ "<component>"). */}}
{{- define "sca-portal.componentEnv" -}}
{{- $ := index . 0 -}}
{{- $name := index . 1 -}}
{{- with index $.Values.services $name }}
- name: {{ ternary "HTTP_PORT" "RPC_PORT" (eq $name "gateway") }}
  value: {{ .port | quote }}
{{- with .nodeOptions }}
{{- /* Replaces the image's NODE_OPTIONS (--max-semi-space-size=8): repeat it here. */}}
- name: NODE_OPTIONS
  value: {{ . | quote }}
{{- end }}
{{- with .slots }}
- name: TASK_WORKER_CONCURRENCY
  value: {{ .manual | quote }}
- name: TASK_WORKER_AUTOMATIC_CONCURRENCY
  value: {{ .automatic | quote }}
{{- end }}
{{- end }}
{{- if include "sca-portal.signingKeyMounted" (list $ $name) }}
{{- with $.Values.signing }}
- name: SIGNING_KEY_PATH
  value: {{ printf "%s/%s" (trimSuffix "/" .mountPath) .existingSecretKey | quote }}
{{- with .passwordEncryptedKey }}
- name: SIGNING_KEY_PASSWORD_ENCRYPTED
  valueFrom:
    secretKeyRef:
      name: {{ $.Values.signing.existingSecret }}
      key: {{ . }}
{{- end }}
{{- end }}
{{- end }}
{{- if include "sca-portal.signingKeyless" (list $ $name) }}
{{- with $.Values.signing.keyless }}
- name: SIGNING_KEYLESS
  value: "true"
- name: SIGNING_CA_URL
  value: {{ .caUrl | quote }}
- name: SIGNING_OIDC_ISSUER
  value: {{ .oidcIssuer | quote }}
- name: SIGNING_OIDC_TOKEN_PATH
  value: {{ printf "%s/token" (trimSuffix "/" .tokenMountPath) | quote }}
{{- end }}
{{- end }}
{{- if eq $name "admin" }}
- name: BACKUP_DIR
  value: {{ $.Values.backups.mountPath | quote }}
{{- end }}
{{- if eq $name "gateway" }}
{{- /* Per-IP limits key on the address the ingress saw, from X-Forwarded-For. */}}
- name: TRUST_PROXY_HOPS
  value: {{ $.Values.ingress.trustedProxyHops | quote }}
{{- with $.Values.tracing.otlpEndpoint }}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ . | quote }}
{{- end }}
{{- end }}
{{- if hasKey $.Values.services $name }}
{{- $metrics := (include "sca-portal.setting" (list $ $name "metrics") | fromJson).v }}
- name: METRICS_ENABLED
  value: {{ $metrics.enabled | quote }}
{{- if $metrics.enabled }}
{{- /* /metrics on a port of its own, which the Ingress and HTTPRoute never route to. */}}
- name: METRICS_PORT
  value: {{ $metrics.port | quote }}
{{- end }}
{{- end }}
{{- end -}}

{{/*
The scanner-runner's size from its job slots (docs/deploy.md, "Sizing the scanner-runner"), as JSON: every slot may
run a tool of sourceScans.toolMemoryMb at once, and hold the largest of a clone (plus scancode's output), an
expanded archive, or a container image downloaded and unpacked; a stopping pod waits for the longest stage to reach
its boundary. Call with (list $ <service values>).
*/}}
{{- define "sca-portal.slotSizing" -}}
{{- $ := index . 0 -}}
{{- $service := index . 1 -}}
{{- $v := $.Values -}}
{{- $slots := add $service.slots.manual $service.slots.automatic -}}
{{- $mi := 1048576 -}}
{{- $perSlotBytes := max (add $v.sourceScans.cloneMaxBytes $v.scancode.maxResultBytes) $v.sourceScans.archiveMaxExpandedBytes (add $v.containerScans.imageMaxBytes $v.containerScans.imageMaxExpandedBytes) -}}
{{- $longestStage := max $v.sourceScans.cloneTimeoutSeconds $v.sourceScans.cdxgenTimeoutSeconds $v.scancode.timeoutSeconds $v.containerScans.pullTimeoutSeconds -}}
{{- dict
    "slots" $slots
    "memoryRequest" (printf "%dMi" (add $service.sizing.baseMemoryMi $v.sourceScans.toolMemoryMb))
    "memoryLimit" (printf "%dMi" (add $service.sizing.baseMemoryMi (mul $slots $v.sourceScans.toolMemoryMb)))
    "tmp" (printf "%dMi" (add $service.sizing.baseTmpMi (mul $slots (div (add $perSlotBytes (sub $mi 1)) $mi))))
    "gracePeriodSeconds" (add $longestStage 60)
  | toJson -}}
{{- end -}}
