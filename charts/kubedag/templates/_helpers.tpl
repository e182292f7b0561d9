{{/* Names shared by the templates; resource names are capped at 63 characters. */}}
{{- define "kubedag.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "kubedag.operatorName" -}}
{{- printf "%s-operator" (include "kubedag.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "kubedag.apiName" -}}
{{- printf "%s-api" (include "kubedag.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The ClusterRole of steps that exec into containers; bound per run by the operator. */}}
{{- define "kubedag.stepExecRole" -}}
{{- printf "%s-step-exec" (include "kubedag.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "kubedag.operatorServiceAccount" -}}
{{- default (include "kubedag.operatorName" .) .Values.serviceAccount.operatorName -}}
{{- end -}}

{{- define "kubedag.apiServiceAccount" -}}
{{- default (include "kubedag.apiName" .) .Values.serviceAccount.apiServerName -}}
{{- end -}}

{{/* The namespace the API server serves. */}}
{{- define "kubedag.apiNamespace" -}}
{{- default .Release.Namespace .Values.apiServer.namespace -}}
{{- end -}}

{{- define "kubedag.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{- define "kubedag.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "kubedag.operatorSelector" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: operator
{{- end -}}

{{- define "kubedag.apiSelector" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: api-server
{{- end -}}

{{/* The operator's rules on Kubedag's resources and the step Pods it runs. */}}
{{- define "kubedag.operatorRules" -}}
- apiGroups: [kubedag.io]
  resources: [dags, dagqueues]
  verbs: [get, list, watch]
- apiGroups: [kubedag.io]
  resources: [dags/status]
  verbs: [get, update, patch]
- apiGroups: [kubedag.io]
  resources: [dagruns]
  verbs: [get, list, watch, create, update, patch, delete]
- apiGroups: [kubedag.io]
  resources: [dagruns/status]
  verbs: [get, update, patch]
# A run's immutable pieces (sealed step records, the frozen definition); garbage collected with
# it. Delete: a deleted namesake's frozen definition the collector has not reached yet.
- apiGroups: [kubedag.io]
  resources: [dagrunsegments]
  verbs: [get, list, create, delete]
- apiGroups: [""]
  resources: [pods]
  verbs: [get, list, watch, create, delete, patch]
- apiGroups: [""]
  resources: [pods/log]
  verbs: [get]
- apiGroups: [""]
  resources: [secrets]
  verbs: [get, create]
- apiGroups: [""]
  resources: [persistentvolumeclaims]
  verbs: [create]
# A run whose steps exec into containers gets a ServiceAccount bound to the step exec role in
# its namespace; the operator may bind that one role, and holds no pods/exec itself.
- apiGroups: [""]
  resources: [serviceaccounts]
  verbs: [create]
# The service accounts a DAG may name are those labelled kubedag.io/allow-runs=true
# (docs/pod-policy.md); the operator watches just those.
- apiGroups: [""]
  resources: [serviceaccounts]
  verbs: [list, watch]
- apiGroups: [rbac.authorization.k8s.io]
  resources: [rolebindings]
  verbs: [create]
- apiGroups: [rbac.authorization.k8s.io]
  resources: [clusterroles]
  verbs: [bind]
  resourceNames: [{{ include "kubedag.stepExecRole" . }}]
- apiGroups: [""]
  resources: [events]
  verbs: [create, patch]
{{- end -}}

{{/*
The PostgreSQL history store's URL, from its Secret, for the operator and the API server alike
(a variable only: it holds a password); for history.store=postgres.
*/}}
{{- define "kubedag.historyPostgresEnv" -}}
- name: KUBEDAG_HISTORY_POSTGRES_URL
  valueFrom:
    secretKeyRef:
      name: {{ .Values.history.postgres.existingSecret }}
      key: {{ .Values.history.postgres.key }}
{{- end }}
