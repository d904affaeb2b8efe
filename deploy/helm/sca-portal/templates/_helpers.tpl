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

{{/* The environment every process (services and migrations) shares. */}}
{{- define "sca-portal.env" -}}
- name: APP_ENV
  value: {{ .Values.appEnv | quote }}
- name: LOG_LEVEL
  value: {{ .Values.logLevel | quote }}
- name: DOMAIN
  value: {{ .Values.domain | quote }}
- name: CORS_ALLOWED_ORIGINS
  value: {{ .Values.corsAllowedOrigins | default (list (printf "https://%s" .Values.domain)) | join "," | quote }}
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
- name: SECRET_KEY
  valueFrom:
    {{- include "sca-portal.secretKeyRef" (list . .Values.secretKey "SECRET_KEY") | nindent 4 }}
- name: DATABASE_URL
  valueFrom:
    {{- include "sca-portal.secretKeyRef" (list . .Values.postgresql "DATABASE_URL") | nindent 4 }}
- name: REDIS_URL
  valueFrom:
    {{- include "sca-portal.secretKeyRef" (list . .Values.redis "REDIS_URL") | nindent 4 }}
{{- include "sca-portal.artefactEnv" . }}
{{- range $key, $value := .Values.env }}
- name: {{ $key }}
  value: {{ $value | toString | quote }}
{{- end }}
{{- end -}}

{{/* The services that read or write the artefact store (and so mount its volume with the directory backend). */}}
{{- define "sca-portal.artefactUsers" -}}
{{- list "gateway" "projects" "scan-orchestrator" "scanner-runner" "admin" | toJson -}}
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
{{- if or $a.s3.existingSecret $a.s3.accessKeyId }}
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
{{- end }}
{{- end -}}

{{/* The claim of the directory backend's volume. */}}
{{- define "sca-portal.artefactClaim" -}}
{{- .Values.artefacts.directory.existingClaim | default (printf "%s-artefacts" (include "sca-portal.fullname" .)) -}}
{{- end -}}

{{/* envFrom of every process: the Secrets named in envFromSecrets. */}}
{{- define "sca-portal.envFrom" -}}
{{- with .Values.envFromSecrets -}}
envFrom:
  {{- range . }}
  - secretRef:
      name: {{ . }}
  {{- end }}
{{- end -}}
{{- end -}}

{{/* Pod-level settings every pod shares. */}}
{{- define "sca-portal.podSettings" -}}
automountServiceAccountToken: false
# Service links would add <SERVICE>_PORT-style variables for every Service in the namespace.
enableServiceLinks: false
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/*
A checksum of what the chart's Secret is made from, so pods restart when it changes. A generated SECRET_KEY is
left out: it stays the same across upgrades.
*/}}
{{- define "sca-portal.secretChecksum" -}}
{{- list .Values.secretKey .Values.postgresql .Values.redis .Values.artefacts.s3 | toJson | sha256sum -}}
{{- end -}}
