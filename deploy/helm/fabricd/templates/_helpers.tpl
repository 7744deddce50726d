{{- define "fabricd.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "fabricd.fullname" -}}
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

{{- define "fabricd.selectorLabels" -}}
app.kubernetes.io/name: {{ include "fabricd.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "fabricd.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "fabricd.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "fabricd.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "fabricd.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "fabricd.probeSecret" -}}
{{- default (printf "%s-probe-key" (include "fabricd.fullname" .)) .Values.probe.existingSecret -}}
{{- end -}}

{{/* "file": the key is mounted from a Secret the chart or the user made; "agents": the agents
     read or make the Secret themselves (no key in any rendering: stable under helm template). */}}
{{- define "fabricd.probeKeyMode" -}}
{{- if or .Values.probe.existingSecret .Values.probe.key -}}file{{- else -}}agents{{- end -}}
{{- end -}}

{{/* The container's java arguments: packaging/jvm.options (or javaOpts), extraJavaOpts, the jar. */}}
{{- define "fabricd.javaArgs" -}}
{{- if .Values.javaOpts }}
{{- range splitList " " .Values.javaOpts }}{{ if . }}
- {{ . | quote }}{{ end }}{{ end }}
{{- else }}
- "@/usr/share/fabricd/jvm.options"
{{- end }}
{{- range splitList " " .Values.extraJavaOpts }}{{ if . }}
- {{ . | quote }}{{ end }}{{ end }}
- "-jar"
- "/usr/share/fabricd/fabricd.jar"
{{- end -}}

{{/* The agent's configuration: what the chart needs, with .Values.config merged over it. */}}
{{- define "fabricd.config" -}}
{{- $base := dict "listen" (printf "0.0.0.0:%d" (int .Values.port)) -}}
{{- if .Values.probe.enabled -}}
{{- $k8s := dict "service" (include "fabricd.fullname" .) "namespace" .Release.Namespace "port_name" "http" "rack_labels" .Values.probe.rackLabels -}}
{{- if eq (include "fabricd.probeKeyMode" .) "agents" -}}
{{- $_ := set $k8s "key_secret" (include "fabricd.probeSecret" .) -}}
{{- $_ := set $base "probe" (dict "udp_port" (int .Values.probe.udpPort) "kubernetes" $k8s) -}}
{{- else -}}
{{- $_ := set $base "probe" (dict "key_file" "/etc/fabricd/probe/key" "udp_port" (int .Values.probe.udpPort) "kubernetes" $k8s) -}}
{{- end -}}
{{- end -}}
{{- if include "fabricd.webSecret" . -}}
{{- $_ := set $base "http" (dict "web_config_file" "/etc/fabricd/web/web.yml") -}}
{{- end -}}
{{- if .Values.stateHostPath -}}
{{- $_ := set $base "state_dir" "/var/lib/fabricd" -}}
{{- end -}}
{{- if .Values.kubeRbacProxy.enabled -}}
{{- if include "fabricd.webSecret" . -}}
{{- fail "kubeRbacProxy.enabled and web.existingSecret, web.certManager or web.basicAuth: choose one (the proxy serves TLS and authenticates itself)" -}}
{{- end -}}
{{- if eq (int .Values.kubeRbacProxy.upstreamPort) (int .Values.port) -}}
{{- fail "kubeRbacProxy.upstreamPort must differ from port" -}}
{{- end -}}
{{- $_ := set $base "listen" (printf "127.0.0.1:%d" (int .Values.kubeRbacProxy.upstreamPort)) -}}
{{- if .Values.probe.enabled -}}
{{- $_ := set $base.probe "udp_host" "0.0.0.0" -}}
{{- $_ := set $base.probe "endpoint_tls" true -}}
{{- end -}}
{{- end -}}
{{- toYaml (mergeOverwrite $base (deepCopy .Values.config)) -}}
{{- end -}}

{{/* The scheme kubelet probes and scrapers use on the HTTP port. */}}
{{- define "fabricd.scheme" -}}
{{- if or .Values.kubeRbacProxy.enabled .Values.web.certManager.enabled -}}https{{- else -}}{{ .Values.web.scheme }}{{- end -}}
{{- end -}}

{{/* The Secret holding web.yml: the user's (web.existingSecret), the chart's (web.certManager or
     web.basicAuth), or none (plain HTTP, no auth). Fails on settings that do not go together. */}}
{{- define "fabricd.webSecret" -}}
{{- $chart := or .Values.web.certManager.enabled .Values.web.basicAuth.username .Values.web.basicAuth.bcryptHash -}}
{{- if and .Values.web.existingSecret $chart -}}
{{- fail "web.existingSecret holds your own web.yml: leave web.certManager and web.basicAuth out (put TLS and users in that web.yml)" -}}
{{- end -}}
{{- if and $chart (not .Values.web.certManager.enabled) (or (not .Values.web.basicAuth.username) (not .Values.web.basicAuth.bcryptHash)) -}}
{{- fail "web.basicAuth needs username and bcryptHash (htpasswd -nbBC 10 \"\" \"$PASSWORD\" | tr -d ':\\n')" -}}
{{- end -}}
{{- if and .Values.web.basicAuth.bcryptHash (not .Values.web.basicAuth.username) -}}
{{- fail "web.basicAuth.bcryptHash needs web.basicAuth.username (the user Prometheus scrapes as)" -}}
{{- end -}}
{{- if and .Values.web.basicAuth.username (not .Values.web.basicAuth.bcryptHash) -}}
{{- fail "web.basicAuth.username needs web.basicAuth.bcryptHash (htpasswd -nbBC 10 \"\" \"$PASSWORD\" | tr -d ':\\n')" -}}
{{- end -}}
{{- if and .Values.web.basicAuth.username .Values.serviceMonitor.enabled (not .Values.web.basicAuth.secret) (not .Values.serviceMonitor.basicAuth) -}}
{{- fail "web.basicAuth: name web.basicAuth.secret (a Secret with keys username and password) so the ServiceMonitor can scrape, or set serviceMonitor.basicAuth" -}}
{{- end -}}
{{- if .Values.web.existingSecret -}}{{ .Values.web.existingSecret }}{{- else if $chart -}}{{ include "fabricd.fullname" . }}-web{{- end -}}
{{- end -}}

{{/* The web.yml the chart renders (web.certManager, web.basicAuth). */}}
{{- define "fabricd.webYaml" -}}
{{- $w := dict -}}
{{- if .Values.web.certManager.enabled -}}
{{- $_ := set $w "tls_server_config" (dict "cert_file" "/etc/fabricd/tls/tls.crt" "key_file" "/etc/fabricd/tls/tls.key" "min_version" "TLS12") -}}
{{- end -}}
{{- if .Values.web.basicAuth.username -}}
{{- $_ := set $w "basic_auth_users" (dict .Values.web.basicAuth.username .Values.web.basicAuth.bcryptHash) -}}
{{- end -}}
{{- toYaml $w -}}
{{- end -}}

{{/* "true" when the agent's container runs as a user other than root (securityContext.runAsUser). */}}
{{- define "fabricd.nonRoot" -}}
{{- if ne (int ((default (dict) .Values.securityContext).runAsUser | default 0)) 0 -}}true{{- end -}}
{{- end -}}

{{/* The mode of the Secrets' files: root's alone (0400), or, for a non-root agent, its fsGroup's too
     (0440: the probe key's rule allows a group the reader is in, docs/security.md). */}}
{{- define "fabricd.secretMode" -}}
{{- if include "fabricd.nonRoot" . -}}0440{{- else -}}0400{{- end -}}
{{- end -}}
