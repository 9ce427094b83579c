{{/*
TLS for the callback (values callback.tls; docs/kubernetes.md, "TLS for the callback").
"ods.callbackTls.certManager": "true" when cert-manager makes the certificate: TLS not off, no
secretName, certManager.enabled and cert-manager's API (cert-manager.io/v1) in the cluster.
*/}}
{{- define "ods.callbackTls.certManager" -}}
{{- $tls := .Values.callback.tls -}}
{{- if and (ne (toString $tls.enabled) "false") (not $tls.secretName) $tls.certManager.enabled (.Capabilities.APIVersions.Has "cert-manager.io/v1") -}}
true
{{- end -}}
{{- end -}}

{{/* The kubernetes.io/tls Secret the operator serves the callback with; "" for plain HTTP. */}}
{{- define "ods.callbackTls.secretName" -}}
{{- $tls := .Values.callback.tls -}}
{{- if eq (toString $tls.enabled) "false" -}}
{{- else if $tls.secretName -}}
{{- $tls.secretName -}}
{{- else if include "ods.callbackTls.certManager" . -}}
{{- printf "%s-callback-tls" (include "ods.fullname" .) -}}
{{- else if eq (toString $tls.enabled) "true" -}}
{{- fail "callback.tls.enabled is true but there is no certificate: set callback.tls.secretName to a kubernetes.io/tls Secret, or install cert-manager (cert-manager.io/v1) and keep callback.tls.certManager.enabled" -}}
{{- end -}}
{{- end -}}

{{/* The URL runner pods reach the callback at: the Service's name, https:// with TLS. */}}
{{- define "ods.callbackUrl" -}}
{{- printf "%s://%s.%s.svc:%v" (ternary "https" "http" (ne (include "ods.callbackTls.secretName" .) "")) (include "ods.fullname" .) .Release.Namespace .Values.callback.port -}}
{{- end -}}

{{/* The operator's flags for TLS (none for plain HTTP); the CA is ca.crt beside tls.crt when the Secret has one. */}}
{{- define "ods.callbackTls.args" -}}
{{- if include "ods.callbackTls.secretName" . -}}
- --callback-tls-cert=/etc/ods/callback-tls/tls.crt
- --callback-tls-key=/etc/ods/callback-tls/tls.key
{{- end }}
{{- end -}}

{{- define "ods.callbackTls.volumeMounts" -}}
{{- if include "ods.callbackTls.secretName" . -}}
- name: callback-tls
  mountPath: /etc/ods/callback-tls
  readOnly: true
{{- end }}
{{- end -}}

{{- define "ods.callbackTls.volumes" -}}
{{- with include "ods.callbackTls.secretName" . -}}
- name: callback-tls
  secret:
    secretName: {{ . }}
{{- end }}
{{- end -}}
