{{/*
The shape of one gRPC service (keys, vouchers, certificates, bulk, notify, platform): a
Deployment serving gRPC on 0.0.0.0:<grpcPort> with the standard grpc.health.v1 probes, and a
ClusterIP Service the gateway and the other services dial. Each service's own template file
calls these with dict "root" $ "name" "<svc>", so every service has the same shape.
*/}}

{{- define "hallmark.grpc.deployment" -}}
{{- $root := .root }}
{{- $values := index $root.Values.services .name }}
{{- $versioned := gt (int $values.restatePort) 0 }}
apiVersion: apps/v1
kind: Deployment
metadata:
  {{- /*
  A service with Restate handlers runs one Deployment per release: an upgrade starts the new
  release's pods beside the old ones, which helm keeps (and the gRPC Service still reaches)
  while Restate finishes the invocations pinned to them; restate-drain removes them after.
  */}}
  name: {{ $versioned | ternary (include "hallmark.releaseName" .) (include "hallmark.svcName" .) }}
  labels:
    {{- include "hallmark.componentLabels" . | trim | nindent 4 }}
    {{- with include "hallmark.releaseLabel" . | trim }}{{ . | nindent 4 }}{{ end }}
  {{- if $versioned }}
  annotations:
    helm.sh/resource-policy: keep
  {{- end }}
spec:
  replicas: {{ $values.replicas }}
  revisionHistoryLimit: 5
  selector:
    matchLabels:
      {{- include "hallmark.selectorLabels" . | trim | nindent 6 }}
      {{- with include "hallmark.releaseLabel" . | trim }}{{ . | nindent 6 }}{{ end }}
  template:
    metadata:
      {{- include "hallmark.podMetadata" . | trim | nindent 6 }}
    spec:
      {{- include "hallmark.podSpec" . | trim | nindent 6 }}
      containers:
        - name: {{ .name }}
          {{- include "hallmark.containerCommon" . | trim | nindent 10 }}
          ports:
            - name: grpc
              containerPort: {{ $root.Values.grpcPort }}
              protocol: TCP
            {{- if $root.Values.metrics.enabled }}
            - name: metrics
              containerPort: {{ $root.Values.metrics.port }}
              protocol: TCP
            {{- end }}
            {{- if gt (int $values.restatePort) 0 }}
            - name: restate
              containerPort: {{ $values.restatePort }}
              protocol: TCP
            {{- end }}
          env:
            {{- include "hallmark.addrEnv" (dict "root" $root "self" .name) | trim | nindent 12 }}
            {{- include "hallmark.env" . | trim | nindent 12 }}
          # Startup and liveness ask the "liveness" health entry (SERVING while the process
          # runs); readiness the overall one, SERVING while the database answers (a NATS outage
          # does not take a backend out: its events wait in the outbox).
          startupProbe:
            grpc:
              port: {{ $root.Values.grpcPort }}
              service: liveness
            periodSeconds: 2
            failureThreshold: 60
          livenessProbe:
            grpc:
              port: {{ $root.Values.grpcPort }}
              service: liveness
            periodSeconds: 10
            timeoutSeconds: 2
            failureThreshold: 3
          readinessProbe:
            grpc:
              port: {{ $root.Values.grpcPort }}
            periodSeconds: 5
            timeoutSeconds: 2
            failureThreshold: 2
{{- end }}

{{- define "hallmark.grpc.service" -}}
{{- $values := index .root.Values.services .name }}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "hallmark.svcName" . }}
  labels:
    {{- include "hallmark.componentLabels" . | trim | nindent 4 }}
spec:
  type: ClusterIP
  selector:
    {{- include "hallmark.selectorLabels" . | trim | nindent 4 }}
  ports:
    - name: grpc
      port: {{ .root.Values.grpcPort }}
      targetPort: grpc
      protocol: TCP
      appProtocol: grpc
    {{- if .root.Values.metrics.enabled }}
    - name: metrics
      port: {{ .root.Values.metrics.port }}
      targetPort: metrics
      protocol: TCP
    {{- end }}
{{- if gt (int $values.restatePort) 0 }}
{{- /*
The Restate endpoint of this release's pods only: the URI registered for this release (with
/<release> appended), so Restate's calls for invocations pinned to it never reach another
release's code. Kept across upgrades like the release's Deployment.
*/}}
---
apiVersion: v1
kind: Service
metadata:
  name: {{ include "hallmark.releaseName" . }}
  labels:
    {{- include "hallmark.componentLabels" . | trim | nindent 4 }}
    {{- with include "hallmark.releaseLabel" . | trim }}{{ . | nindent 4 }}{{ end }}
  annotations:
    helm.sh/resource-policy: keep
spec:
  type: ClusterIP
  selector:
    {{- include "hallmark.selectorLabels" . | trim | nindent 4 }}
    {{- with include "hallmark.releaseLabel" . | trim }}{{ . | nindent 4 }}{{ end }}
  ports:
    - name: restate
      port: {{ $values.restatePort }}
      targetPort: restate
      protocol: TCP
      appProtocol: kubernetes.io/h2c
{{- end }}
{{- /*
A headless Service over the same pods, gRPC only: its DNS name resolves to every ready pod, so
a client dialling dns:///<name>:<port> (HALLMARK_<SVC>_ADDR) connects to each and spreads its
calls round robin. Through the ClusterIP Service one long-lived HTTP/2 connection would reach
one pod, and more replicas would take no load.
*/}}
---
apiVersion: v1
kind: Service
metadata:
  name: {{ include "hallmark.podsName" . }}
  labels:
    {{- include "hallmark.componentLabels" . | trim | nindent 4 }}
spec:
  clusterIP: None
  selector:
    {{- include "hallmark.selectorLabels" . | trim | nindent 4 }}
  ports:
    - name: grpc
      port: {{ .root.Values.grpcPort }}
      targetPort: grpc
      protocol: TCP
      appProtocol: grpc
{{- end }}

{{/* dict root name → a PodDisruptionBudget for one service, when enabled. */}}
{{- define "hallmark.pdb" -}}
{{- if .root.Values.podDisruptionBudget.enabled }}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "hallmark.svcName" . }}
  labels:
    {{- include "hallmark.componentLabels" . | trim | nindent 4 }}
spec:
  maxUnavailable: {{ .root.Values.podDisruptionBudget.maxUnavailable }}
  selector:
    matchLabels:
      {{- include "hallmark.selectorLabels" . | trim | nindent 6 }}
{{- end }}
{{- end }}
