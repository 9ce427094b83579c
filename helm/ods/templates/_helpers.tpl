{{/* The release's name for every object: <release>-ods, or the release name when it has "ods". */}}
{{- define "ods.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "ods.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: operator
{{- end -}}

{{- define "ods.labels" -}}
{{ include "ods.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "ods.serviceAccountName" -}}
{{- default (include "ods.fullname" .) .Values.serviceAccount.name -}}
{{- end -}}

{{- define "ods.leaseName" -}}
{{- default (printf "%s-leader" (include "ods.fullname" .)) .Values.leaderElection.leaseName -}}
{{- end -}}

{{- define "ods.image" -}}
{{- printf "%s:%s" .repository (default .appVersion .tag) -}}
{{- end -}}

{{/* The namespace a namespaced operator watches (rbac.namespaced): rbac.watchNamespace, else the release's. */}}
{{- define "ods.watchNamespace" -}}
{{- default .Release.Namespace .Values.rbac.watchNamespace -}}
{{- end -}}
