package io.fabricd.deploy;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The prometheus-operator kinds the chart renders (monitoring.coreos.com/v1 ServiceMonitor and
 * PrometheusRule), as fabric8 custom resources: fabric8 8.0.0's own model of them
 * (openshift-model-monitoring) is not on the registry this project builds from. The fields are
 * those of the operator's CRDs that the chart may set; like fabric8's models, every class keeps
 * unknown fields in {@code additionalProperties}, which the strict walker rejects.
 */
final class Monitoring {
    private Monitoring() {
    }

    /** Unknown fields land here (fabric8's convention), for the strict walker to find. */
    abstract static class Strict {
        private final Map<String, Object> additionalProperties = new LinkedHashMap<>();

        @JsonAnyGetter
        public Map<String, Object> getAdditionalProperties() {
            return additionalProperties;
        }

        @JsonAnySetter
        public void setAdditionalProperty(String name, Object value) {
            additionalProperties.put(name, value);
        }
    }

    @Group("monitoring.coreos.com")
    @Version("v1")
    @Kind("ServiceMonitor")
    public static final class ServiceMonitor extends CustomResource<ServiceMonitorSpec, Void> implements Namespaced {
    }

    @Group("monitoring.coreos.com")
    @Version("v1")
    @Kind("PrometheusRule")
    public static final class PrometheusRule extends CustomResource<PrometheusRuleSpec, Void> implements Namespaced {
    }

    public static final class ServiceMonitorSpec extends Strict {
        public LabelSelector selector;
        public NamespaceSelector namespaceSelector;
        public List<Endpoint> endpoints;
        public String jobLabel;
        public List<String> targetLabels;
        public List<String> podTargetLabels;
        public Long sampleLimit;

        public LabelSelector getSelector() {
            return selector;
        }

        public NamespaceSelector getNamespaceSelector() {
            return namespaceSelector;
        }

        public List<Endpoint> getEndpoints() {
            return endpoints;
        }
    }

    public static final class NamespaceSelector extends Strict {
        public Boolean any;
        public List<String> matchNames;

        public List<String> getMatchNames() {
            return matchNames;
        }
    }

    public static final class Endpoint extends Strict {
        public String port;
        public String targetPort;
        public String path;
        public String scheme;
        public String interval;
        public String scrapeTimeout;
        public Boolean honorLabels;
        public List<RelabelConfig> relabelings;
        public List<RelabelConfig> metricRelabelings;
        public TlsConfig tlsConfig;
        public BasicAuth basicAuth;
        public String bearerTokenFile;

        public String getBearerTokenFile() {
            return bearerTokenFile;
        }

        public String getPort() {
            return port;
        }

        public String getScheme() {
            return scheme;
        }

        public TlsConfig getTlsConfig() {
            return tlsConfig;
        }

        public BasicAuth getBasicAuth() {
            return basicAuth;
        }

        public List<RelabelConfig> getRelabelings() {
            return relabelings;
        }
    }

    /** prometheus-operator's TLSConfig of an endpoint (SafeTLSConfig and the file fields). */
    public static final class TlsConfig extends Strict {
        public SecretOrConfigMap ca;
        public SecretOrConfigMap cert;
        public SecretKeySelector keySecret;
        public String serverName;
        public Boolean insecureSkipVerify;
        public String caFile;
        public String certFile;
        public String keyFile;

        public String getServerName() {
            return serverName;
        }
    }

    public static final class SecretOrConfigMap extends Strict {
        public SecretKeySelector secret;
        public SecretKeySelector configMap;
    }

    public static final class SecretKeySelector extends Strict {
        public String name;
        public String key;
        public Boolean optional;

        public String getKey() {
            return key;
        }
    }

    public static final class BasicAuth extends Strict {
        public SecretKeySelector username;
        public SecretKeySelector password;

        public SecretKeySelector getPassword() {
            return password;
        }
    }

    public static final class RelabelConfig extends Strict {
        public List<String> sourceLabels;
        public String separator;
        public String targetLabel;
        public String regex;
        public Long modulus;
        public String replacement;
        public String action;
    }

    public static final class PrometheusRuleSpec extends Strict {
        public List<RuleGroup> groups;

        public List<RuleGroup> getGroups() {
            return groups;
        }
    }

    public static final class RuleGroup extends Strict {
        public String name;
        public String interval;
        public List<Rule> rules;
        public Integer limit;

        public List<Rule> getRules() {
            return rules;
        }
    }

    public static final class Rule extends Strict {
        public String alert;
        public String record;
        public String expr;
        @JsonProperty("for")
        public String forDuration;
        @JsonProperty("keep_firing_for")
        public String keepFiringFor;
        public Map<String, String> labels;
        public Map<String, String> annotations;
    }
}
