{{/* The chart's name. */}}
{{- define "hookd.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The release's base name for every object. */}}
{{- define "hookd.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "hookd.selectorLabels" -}}
app.kubernetes.io/name: {{ include "hookd.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "hookd.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "hookd.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* The processes this mode runs: api and worker, or serve. */}}
{{- define "hookd.components" -}}
{{- if eq .Values.mode "serve" -}}serve{{- else -}}api worker{{- end -}}
{{- end -}}

{{/* The component whose pods the API's Service selects. */}}
{{- define "hookd.apiComponent" -}}
{{- if eq .Values.mode "serve" -}}serve{{- else -}}api{{- end -}}
{{- end -}}

{{- define "hookd.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{- define "hookd.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "hookd.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* The Secret the chart creates for the secrets given as values. */}}
{{- define "hookd.secretName" -}}
{{- include "hookd.fullname" . -}}
{{- end -}}

{{/*
An environment variable from a secret setting {existingSecret, key, value}:
the chart's Secret when value is set, else the existing Secret.
Call with (list $ "ENV_NAME" .Values.setting).
*/}}
{{- define "hookd.secretEnv" -}}
{{- $root := index . 0 -}}
{{- $env := index . 1 -}}
{{- $s := index . 2 -}}
- name: {{ $env }}
  valueFrom:
    secretKeyRef:
      {{- if $s.value }}
      name: {{ include "hookd.secretName" $root }}
      key: {{ $env }}
      {{- else }}
      name: {{ $s.existingSecret }}
      key: {{ $s.key }}
      {{- end }}
{{- end -}}

{{/* Whether the Temporal API key is configured ("true" or ""). */}}
{{- define "hookd.temporalAPIKey" -}}
{{- if or .Values.temporal.apiKey.value .Values.temporal.apiKey.existingSecret -}}true{{- end -}}
{{- end -}}

{{/* Whether the chart creates a Secret ("true" or ""). */}}
{{- define "hookd.createSecret" -}}
{{- if or .Values.database.value .Values.masterKey.value .Values.payloadKeys.value .Values.apiKeys.value .Values.temporal.apiKey.value -}}true{{- end -}}
{{- end -}}

{{/* The mount path of the Temporal TLS files. */}}
{{- define "hookd.tlsDir" -}}/etc/hookd/temporal-tls{{- end -}}

{{/*
The environment of one component (api, worker or serve). Call with
(list $ "api").
*/}}
{{- define "hookd.env" -}}
{{- $root := index . 0 -}}
{{- $c := index . 1 -}}
{{- $v := $root.Values -}}
{{- $tlsDir := include "hookd.tlsDir" $root -}}
- name: TEMPORAL_ADDRESS
  value: {{ $v.temporal.address | quote }}
- name: TEMPORAL_NAMESPACE
  value: {{ $v.temporal.namespace | quote }}
{{- if $v.temporal.tls.enabled }}
- name: TEMPORAL_TLS
  value: "true"
{{- end }}
{{- with $v.temporal.tls.serverName }}
- name: TEMPORAL_TLS_SERVER_NAME
  value: {{ . | quote }}
{{- end }}
{{- if $v.temporal.tls.existingSecret }}
{{- if and $v.temporal.tls.certKey $v.temporal.tls.keyKey }}
- name: TEMPORAL_TLS_CERT
  value: {{ printf "%s/%s" $tlsDir $v.temporal.tls.certKey | quote }}
- name: TEMPORAL_TLS_KEY
  value: {{ printf "%s/%s" $tlsDir $v.temporal.tls.keyKey | quote }}
{{- end }}
{{- with $v.temporal.tls.caKey }}
- name: TEMPORAL_TLS_CA
  value: {{ printf "%s/%s" $tlsDir . | quote }}
{{- end }}
{{- end }}
{{- if include "hookd.temporalAPIKey" $root }}
{{ include "hookd.secretEnv" (list $root "TEMPORAL_API_KEY" $v.temporal.apiKey) }}
{{- end }}
- name: HOOKD_HTTP_ADDR
  value: {{ printf ":%v" $v.ports.http | quote }}
{{- if $v.metrics.enabled }}
- name: HOOKD_METRICS_ADDR
  value: {{ printf ":%v" $v.ports.metrics | quote }}
{{- end }}
- name: HOOKD_RETENTION
  value: {{ $v.config.retention | quote }}
- name: HOOKD_DEAD_LETTER_RETENTION
  value: {{ $v.config.deadLetterRetention | quote }}
- name: HOOKD_ALLOW_CIDRS
  value: {{ $v.config.allowCIDRs | quote }}
- name: HOOKD_SHUTDOWN_DELAY
  value: {{ $v.config.shutdownDelay | quote }}
- name: HOOKD_SHUTDOWN_TIMEOUT
  value: {{ $v.config.shutdownTimeout | quote }}
- name: HOOKD_LOG_FORMAT
  value: {{ $v.config.logFormat | quote }}
- name: HOOKD_LOG_LEVEL
  value: {{ $v.config.logLevel | quote }}
{{ include "hookd.secretEnv" (list $root "HOOKD_DATABASE_URL" $v.database) }}
{{ include "hookd.secretEnv" (list $root "HOOKD_MASTER_KEY" $v.masterKey) }}
{{- if $v.payloadEncryption }}
{{ include "hookd.secretEnv" (list $root "HOOKD_PAYLOAD_KEYS" $v.payloadKeys) }}
{{- else }}
- name: HOOKD_PAYLOAD_ENCRYPTION
  value: "off"
{{- end }}
{{- if ne $c "worker" }}
{{ include "hookd.secretEnv" (list $root "HOOKD_API_KEYS" $v.apiKeys) }}
{{- with $v.config.codecCorsOrigins }}
- name: HOOKD_CODEC_CORS_ORIGINS
  value: {{ . | quote }}
{{- end }}
{{- end }}
{{- if ne $c "api" }}
{{- $w := index $v $c }}
- name: HOOKD_MAX_CONCURRENT_ATTEMPTS
  value: {{ $w.maxConcurrentAttempts | quote }}
- name: HOOKD_WORKFLOW_CACHE
  value: {{ $w.workflowCache | quote }}
{{- end }}
{{- with $v.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end -}}
