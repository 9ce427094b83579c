{{/* The chart's name in labels: nameOverride, else the chart's (ods). */}}
{{- define "ods.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The release's name for every object: fullnameOverride; else <release>-<name>, or the release
name when it contains the name (release "ods" -> "ods"). */}}
{{- define "ods.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := include "ods.name" . -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "ods.selectorLabels" -}}
app.kubernetes.io/name: {{ include "ods.name" . }}
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

{{/* The pull secrets of the operator's pod: global.imagePullSecrets (an umbrella chart's, as names
or {name: ...}) then imagePullSecrets, each name once. */}}
{{- define "ods.imagePullSecrets" -}}
{{- $names := list -}}
{{- range concat (dig "imagePullSecrets" list (.Values.global | default dict)) (.Values.imagePullSecrets | default list) -}}
{{- if kindIs "string" . -}}
{{- $names = append $names . -}}
{{- else -}}
{{- $names = append $names .name -}}
{{- end -}}
{{- end -}}
{{- range uniq $names }}
- name: {{ . }}
{{- end -}}
{{- end -}}

{{/* The runner images DbtProjects may name (--allowed-images): runnerPolicy.allowedImages, else
image.runner.repository with any tag or digest; ["*"] allows any image. */}}
{{- define "ods.allowedImages" -}}
{{- $repository := .Values.image.runner.repository -}}
{{- $images := .Values.runnerPolicy.allowedImages | default (list $repository (printf "%s:*" $repository) (printf "%s@*" $repository)) -}}
{{- join "," $images -}}
{{- end -}}

{{/* topologySpreadConstraints, each without a labelSelector given the operator's pod labels. */}}
{{- define "ods.topologySpreadConstraints" -}}
{{- $own := dict "matchLabels" (include "ods.selectorLabels" . | fromYaml) -}}
{{- $constraints := list -}}
{{- range .Values.topologySpreadConstraints -}}
{{- $constraint := deepCopy . -}}
{{- if not (hasKey $constraint "labelSelector") -}}
{{- $_ := set $constraint "labelSelector" $own -}}
{{- end -}}
{{- $constraints = append $constraints $constraint -}}
{{- end -}}
{{- with $constraints }}{{ toYaml . }}{{ end -}}
{{- end -}}
