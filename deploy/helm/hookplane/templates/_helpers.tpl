{{- define "hookplane.fullname" -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "hookplane.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end -}}

{{- define "hookplane.secretKeySecret" -}}
{{- default (printf "%s-secret-key" (include "hookplane.fullname" .)) .Values.secretKey.existingSecret -}}
{{- end -}}

{{/* The environment every Hookplane container gets: the database, the sealing key, extras. */}}
{{- define "hookplane.env" -}}
- name: DATABASE_URL
{{- if .Values.database.existingSecret }}
  valueFrom:
    secretKeyRef:
      name: {{ .Values.database.existingSecret }}
      key: {{ .Values.database.existingSecretKey }}
{{- else }}
  value: {{ required "database.url or database.existingSecret is required" .Values.database.url | quote }}
{{- end }}
{{- if .Values.database.pooler }}
- name: HOOKPLANE_DB_POOLER
  value: {{ .Values.database.pooler | quote }}
- name: DATABASE_DIRECT_URL
{{- if .Values.database.existingSecret }}
  valueFrom:
    secretKeyRef:
      name: {{ .Values.database.existingSecret }}
      key: {{ .Values.database.existingSecretDirectUrlKey }}
{{- else }}
  value: {{ required "database.directUrl is required with database.pooler" .Values.database.directUrl | quote }}
{{- end }}
{{- end }}
- name: HOOKPLANE_SECRET_KEY
  valueFrom:
    secretKeyRef:
      name: {{ include "hookplane.secretKeySecret" . }}
      key: {{ .Values.secretKey.existingSecretKey }}
{{- if .Values.metrics.enabled }}
- name: HOOKPLANE_METRICS_TOKEN
  valueFrom:
    secretKeyRef:
      name: {{ required "metrics.existingSecret is required when metrics.enabled" .Values.metrics.existingSecret }}
      key: {{ .Values.metrics.existingSecretKey }}
{{- end }}
{{- range $name, $value := .Values.env }}
- name: {{ $name }}
  value: {{ $value | quote }}
{{- end }}
{{- end -}}

{{/* Where Prometheus finds a pod's /metrics (it sends the token from its own configuration). */}}
{{- define "hookplane.metricsAnnotations" -}}
prometheus.io/scrape: "true"
prometheus.io/path: /metrics
prometheus.io/port: {{ . | quote }}
{{- end -}}

{{- define "hookplane.securityContext" -}}
runAsNonRoot: true
runAsUser: 1000
runAsGroup: 1000
allowPrivilegeEscalation: false
{{- end -}}
