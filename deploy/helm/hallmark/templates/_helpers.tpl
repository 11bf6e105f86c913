{{/* Names, labels and the pod pieces every Hallmark workload shares. */}}

{{- define "hallmark.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "hallmark.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* The gRPC services besides the gateway, in SERVICE_ADDR_ENV order (packages/kit/src/config.ts). */}}
{{- define "hallmark.backends" -}}
keys vouchers certificates bulk notify platform
{{- end }}

{{/* Object name of one service's Deployment/Service: <fullname>-<svc>, a valid DNS label. */}}
{{- define "hallmark.svcName" -}}
{{- printf "%s-%s" (include "hallmark.fullname" .root | trunc 50 | trimSuffix "-") .name }}
{{- end }}

{{- /* dict root name → the headless Service of a gRPC service's pods (≤ 63 characters). */}}
{{- define "hallmark.podsName" -}}
{{- printf "%s-%s-pods" (include "hallmark.fullname" .root | trunc 44 | trimSuffix "-") .name }}
{{- end }}

{{- /*
The code release (HALLMARK_RELEASE): releaseVersion, else the image tag, else the chart's
appVersion, as a URL path segment. Each release's Restate endpoints are registered as
deployments of their own (docs/runbooks/upgrade.md).
*/}}
{{- define "hallmark.releaseVersion" -}}
{{- regexReplaceAll "[^A-Za-z0-9._-]" (.Values.releaseVersion | default .Values.image.tag | default .Chart.AppVersion | toString) "-" | trunc 63 }}
{{- end }}

{{- /* The release in object names and the hallmark.dev/release label (DNS-label characters). */}}
{{- define "hallmark.releaseSlug" -}}
{{- regexReplaceAll "[^a-z0-9-]" (include "hallmark.releaseVersion" . | lower) "-" | trunc 20 | trimAll "-" }}
{{- end }}

{{- /*
dict root name → the Deployment and Restate Service of one release of a service with Restate
handlers: <fullname>-<svc>-<release>. Kept by helm across upgrades (resource-policy keep) until
the drain CronJob removes them once Restate has nothing in flight on them.
*/}}
{{- define "hallmark.releaseName" -}}
{{- $suffix := printf "-%s-%s" .name (include "hallmark.releaseSlug" .root) }}
{{- printf "%s%s" (include "hallmark.fullname" .root | trunc (int (sub 63 (len $suffix))) | trimSuffix "-") $suffix }}
{{- end }}

{{- /* dict root name → the label that tells one release's pods of a Restate service apart. */}}
{{- define "hallmark.releaseLabel" -}}
{{- if gt (int (index .root.Values.services .name).restatePort) 0 }}
hallmark.dev/release: {{ include "hallmark.releaseSlug" .root }}
{{- end }}
{{- end }}

{{- define "hallmark.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ include "hallmark.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: hallmark
{{- end }}

{{/* dict root name → selector labels of one service. */}}
{{- define "hallmark.selectorLabels" -}}
app.kubernetes.io/name: {{ include "hallmark.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .name }}
{{- end }}

{{/* dict root name → full labels of one service's objects. */}}
{{- define "hallmark.componentLabels" -}}
{{ include "hallmark.labels" .root }}
app.kubernetes.io/component: {{ .name }}
{{- end }}

{{- /*
A Service's name as seen from any namespace: <name>.<namespace>.svc.<clusterDomain>. Anything
handed to a component that may run elsewhere (Restate calling the workflow endpoints back)
uses it: a bare Service name resolves only inside the release's own namespace.
*/}}
{{- define "hallmark.svcFqdn" -}}
{{- printf "%s.%s.svc.%s" (include "hallmark.svcName" .) .root.Release.Namespace (.root.Values.clusterDomain | default "cluster.local") }}
{{- end }}

{{- define "hallmark.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "hallmark.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "hallmark.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{- define "hallmark.secretName" -}}
{{- default (printf "%s-secrets" (include "hallmark.fullname" .)) .Values.secrets.existingSecret }}
{{- end }}

{{/*
dict root self → HALLMARK_<SVC>_ADDR for every gRPC service. One variable is both the address
a service listens on and the one its clients dial, so the value differs per pod: the pod's own
service listens on 0.0.0.0:<grpcPort>, every other one is dialled as dns:///<svc>-pods:<port>,
its headless Service: every pod an address, calls round robin over them.
*/}}
{{- define "hallmark.addrEnv" -}}
{{- $root := .root }}
{{- range $svc := splitList " " (include "hallmark.backends" $root) }}
- name: HALLMARK_{{ upper $svc }}_ADDR
  {{- if eq $svc $.self }}
  value: {{ printf "0.0.0.0:%d" (int $root.Values.grpcPort) | quote }}
  {{- else }}
  value: {{ printf "dns:///%s:%d" (include "hallmark.podsName" (dict "root" $root "name" $svc)) (int $root.Values.grpcPort) | quote }}
  {{- end }}
{{- end }}
{{- end }}

{{/*
dict root name → the secret keys this service's pod gets, one secretKeyRef each, from the
service's own secretName when set (e.g. a DATABASE_URL whose role owns only that database).
*/}}
{{- define "hallmark.secretEnv" -}}
{{- $root := .root }}
{{- $values := index $root.Values.services .name }}
{{- $secret := default (include "hallmark.secretName" $root) $values.secretName }}
{{- range $key := $values.secretEnv }}
- name: {{ $key }}
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: {{ $key }}
      optional: {{ not (has $key $root.Values.secrets.required) }}
{{- end }}
{{- end }}

{{/*
A value as an environment string. YAML numbers reach templates as float64, and toString would
print 11155111 as "1.1155111e+07"; whole numbers are printed as integers instead.
*/}}
{{- define "hallmark.envValue" -}}
{{- if and (kindIs "float64" .) (eq . (float64 (int64 .))) }}
{{- int64 . | toString }}
{{- else }}
{{- toString . }}
{{- end }}
{{- end }}

{{/* dict root name → env common to a service container, plus its own extra env. */}}
{{- define "hallmark.env" -}}
{{- $values := index .root.Values.services .name }}
{{- include "hallmark.secretEnv" . }}
{{- if .root.Values.metrics.enabled }}
- name: HALLMARK_METRICS_PORT
  value: {{ .root.Values.metrics.port | quote }}
{{- /* The pod's own address, not 0.0.0.0: the NetworkPolicy opens it to the scraper only. */}}
- name: HALLMARK_METRICS_HOST
  valueFrom:
    fieldRef:
      fieldPath: status.podIP
{{- end }}
{{- with .root.Values.tracing.otlpEndpoint }}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ . | quote }}
{{- end }}
{{- $restatePort := int (default 0 $values.restatePort) }}
{{- if gt $restatePort 0 }}
{{- /* One value, services.<svc>.restatePort: the port the endpoint listens on, the container
and Service port, and the URI Restate reaches it at (and the registration Job registers). */}}
- name: HALLMARK_{{ upper .name }}_RESTATE_PORT
  value: {{ $restatePort | toString | quote }}
- name: HALLMARK_{{ upper .name }}_RESTATE_HOST
  value: "0.0.0.0"
- name: HALLMARK_{{ upper .name }}_RESTATE_URL
  value: {{ printf "http://%s:%d" (include "hallmark.releaseName" .) $restatePort | quote }}
{{- /* Literal, not from the ConfigMap: a pod of a draining release that restarts after the
upgrade rewrote the ConfigMap must still serve its own release's path. */}}
- name: HALLMARK_RELEASE
  value: {{ include "hallmark.releaseVersion" .root | quote }}
- name: HALLMARK_{{ upper .name }}_RESTATE_REGISTER
  value: {{ not .root.Values.restateRegistration.enabled | toString | quote }}
{{- end }}
{{- if and (ne .name "gateway") .root.Values.migrations.enabled }}
- name: HALLMARK_MIGRATE_AT_START
  value: "false"
{{- end }}
{{- range $k, $v := $values.env }}
- name: {{ $k }}
  value: {{ include "hallmark.envValue" $v | quote }}
{{- end }}
{{- end }}

{{- define "hallmark.containerSecurityContext" -}}
allowPrivilegeEscalation: false
privileged: false
readOnlyRootFilesystem: true
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
capabilities:
  drop: [ALL]
seccompProfile:
  type: RuntimeDefault
{{- end }}

{{/* Roll pods when the chart-rendered configuration changes. */}}
{{- define "hallmark.checksums" -}}
checksum/config: {{ include (print .Template.BasePath "/configmap.yaml") . | sha256sum }}
{{- if not .Values.secrets.existingSecret }}
checksum/secret: {{ include (print .Template.BasePath "/secret.yaml") . | sha256sum }}
{{- end }}
{{- end }}

{{/* dict root name → pod metadata (labels + annotations) of one service. */}}
{{- define "hallmark.podMetadata" -}}
{{- $root := .root }}
{{- $values := index $root.Values.services .name }}
labels:
  {{- include "hallmark.componentLabels" . | trim | nindent 2 }}
  {{- with include "hallmark.releaseLabel" . | trim }}
  {{- . | nindent 2 }}
  {{- end }}
  {{- with merge (dict) ($values.podLabels | default dict) $root.Values.podLabels }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
annotations:
  {{- include "hallmark.checksums" $root | trim | nindent 2 }}
  {{- /* Scrape annotations by default; a pod annotation of the same key (values) wins. */}}
  {{- $scrape := dict }}
  {{- if $root.Values.metrics.enabled }}
  {{- $scrape = dict "prometheus.io/scrape" "true" "prometheus.io/port" ($root.Values.metrics.port | toString) "prometheus.io/path" "/metrics" }}
  {{- end }}
  {{- with merge (dict) ($values.podAnnotations | default dict) $root.Values.podAnnotations $scrape }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- end }}

{{/*
dict root name → pod-level settings shared by every service: identity, hardening, the writable
/tmp (the root filesystem is read-only; tsx keeps its compile cache in /tmp), scheduling.
*/}}
{{- define "hallmark.podSpec" -}}
{{- $root := .root }}
serviceAccountName: {{ default (include "hallmark.serviceAccountName" $root) .serviceAccount }}
automountServiceAccountToken: false
enableServiceLinks: false
terminationGracePeriodSeconds: {{ $root.Values.terminationGracePeriodSeconds }}
securityContext:
  runAsNonRoot: true
  runAsUser: 10001
  runAsGroup: 10001
  fsGroup: 10001
  seccompProfile:
    type: RuntimeDefault
{{- with $root.Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
volumes:
  - name: tmp
    emptyDir:
      sizeLimit: {{ $root.Values.tmpSizeLimit }}
{{- with $root.Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $root.Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $root.Values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- if $root.Values.spreadAcrossNodes }}
topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: kubernetes.io/hostname
    whenUnsatisfiable: ScheduleAnyway
    labelSelector:
      matchLabels:
        {{- include "hallmark.selectorLabels" . | trim | nindent 8 }}
{{- end }}
{{- end }}

{{/* dict root name → container fields shared by every service (image, hardening, /tmp). */}}
{{- define "hallmark.containerCommon" -}}
{{- $root := .root }}
image: {{ include "hallmark.image" $root }}
imagePullPolicy: {{ $root.Values.image.pullPolicy }}
args: [{{ printf "services/%s/dist/main.js" .name | quote }}]
envFrom:
  - configMapRef:
      name: {{ include "hallmark.fullname" $root }}-config
securityContext:
  {{- include "hallmark.containerSecurityContext" $root | trim | nindent 2 }}
resources:
  {{- toYaml (index $root.Values.services .name).resources | nindent 2 }}
volumeMounts:
  - name: tmp
    mountPath: /tmp
{{- /*
On a rollout or scale-down the pod is removed from its Services' endpoints while SIGTERM is
already on its way; the delay lets every gateway, kube-proxy and client resolver see that
before the process stops taking calls (then it drains what is in flight).
*/}}
{{- if gt (int $root.Values.preStopDelaySeconds) 0 }}
lifecycle:
  preStop:
    sleep:
      seconds: {{ $root.Values.preStopDelaySeconds }}
{{- end }}
{{- end }}
