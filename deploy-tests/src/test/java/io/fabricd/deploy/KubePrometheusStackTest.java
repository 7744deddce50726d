package io.fabricd.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.marcnuri.helm.Helm;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabricd.deploy.Monitoring.PrometheusRule;
import io.fabricd.deploy.Monitoring.ServiceMonitor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Whether a default kube-prometheus-stack picks up the chart's ServiceMonitor, PrometheusRule and
 * dashboards, by the selectors that stack puts in its Prometheus resource and Grafana sidecar with
 * its default values, evaluated with Kubernetes' label selector rules.
 *
 * <p>The stack's defaults (prometheus-community/helm-charts, charts/kube-prometheus-stack:
 * templates/prometheus/prometheus.yaml and values.yaml): with
 * {@code serviceMonitorSelectorNilUsesHelmValues} and {@code ruleSelectorNilUsesHelmValues} true
 * (the default) the Prometheus resource selects ServiceMonitors and PrometheusRules by
 * {@code matchLabels: {release: <the stack's release name>}}; the namespace selectors are
 * {@code {}} (every namespace, in the Prometheus operator's terms); the Grafana sidecar loads
 * ConfigMaps labelled {@code grafana_dashboard: "1"} (from the namespaces of
 * {@code grafana.sidecar.dashboards.searchNamespace}: docs/install-kubernetes.md installs fabricd
 * into the stack's namespace, which every setting of it searches).
 */
class KubePrometheusStackTest {
    static final String STACK = "kps";
    static final LabelSelector STACK_SERVICE_MONITORS = new LabelSelectorBuilder().withMatchLabels(Map.of("release", STACK)).build();
    static final LabelSelector STACK_RULES = new LabelSelectorBuilder().withMatchLabels(Map.of("release", STACK)).build();
    static final LabelSelector STACK_NAMESPACES = new LabelSelector(); // {}: all namespaces
    static final LabelSelector GRAFANA_SIDECAR = new LabelSelectorBuilder().withMatchLabels(Map.of("grafana_dashboard", "1")).build();

    /** Kubernetes' label selector semantics: every matchLabels pair and every requirement hold; {} matches everything. */
    static boolean matches(LabelSelector s, Map<String, String> labels) {
        Map<String, String> l = labels == null ? Map.of() : labels;
        for (Map.Entry<String, String> e : (s.getMatchLabels() == null ? Map.<String, String>of() : s.getMatchLabels()).entrySet()) {
            if (!e.getValue().equals(l.get(e.getKey()))) {
                return false;
            }
        }
        for (LabelSelectorRequirement r : s.getMatchExpressions() == null ? List.<LabelSelectorRequirement>of() : s.getMatchExpressions()) {
            String v = l.get(r.getKey());
            boolean ok = switch (r.getOperator()) {
                case "In" -> v != null && r.getValues().contains(v);
                case "NotIn" -> v == null || !r.getValues().contains(v);
                case "Exists" -> l.containsKey(r.getKey());
                case "DoesNotExist" -> !l.containsKey(r.getKey());
                default -> throw new IllegalArgumentException(r.getOperator());
            };
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    static List<HasMetadata> install(String... sets) {
        return HelmChartTest.render(t -> {
            for (int i = 0; i < sets.length; i += 2) {
                t = t.set(sets[i], sets[i + 1]);
            }
            return t;
        });
    }

    static <T extends HasMetadata> List<T> all(List<HasMetadata> objects, Class<T> type) {
        return objects.stream().filter(type::isInstance).map(type::cast).toList();
    }

    @Test
    void oneSetOfTheStacksReleaseNameIsAllItTakes() {
        List<HasMetadata> objects = install("kubePrometheusStack.release", STACK);
        ServiceMonitor sm = HelmChartTest.one(objects, ServiceMonitor.class);
        assertThat(matches(STACK_SERVICE_MONITORS, sm.getMetadata().getLabels())).as("ServiceMonitor selected").isTrue();
        assertThat(matches(STACK_NAMESPACES, Map.of("kubernetes.io/metadata.name", "monitoring"))).isTrue();
        PrometheusRule rule = HelmChartTest.one(objects, PrometheusRule.class);
        assertThat(matches(STACK_RULES, rule.getMetadata().getLabels())).as("PrometheusRule selected").isTrue();
        List<ConfigMap> dashboards = all(objects, ConfigMap.class).stream()
                .filter(c -> c.getData().keySet().stream().anyMatch(k -> k.endsWith(".json"))).toList();
        assertThat(dashboards).as("dashboard ConfigMaps").isNotEmpty();
        assertThat(dashboards).allSatisfy(c -> assertThat(matches(GRAFANA_SIDECAR, c.getMetadata().getLabels())).isTrue());
        // every dashboard of the repository is in them
        assertThat(dashboards.stream().flatMap(c -> c.getData().keySet().stream()).collect(Collectors.toSet()))
                .containsAll(repositoryDashboards());
    }

    @Test
    void withoutItTheStackDoesNotSeeThemAndTheNotesSaySo() {
        List<HasMetadata> objects = install();
        assertThat(matches(STACK_SERVICE_MONITORS, HelmChartTest.one(objects, ServiceMonitor.class).getMetadata().getLabels())).isFalse();
        assertThat(matches(STACK_RULES, HelmChartTest.one(objects, PrometheusRule.class).getMetadata().getLabels())).isFalse();
        String notes = new Helm(HelmChartTest.CHART).install().withName("fab").withNamespace("monitoring").dryRun()
                .clientOnly().call().getOutput();
        assertThat(notes).contains("WARNING: no release label").contains("--set kubePrometheusStack.release=");
        String set = new Helm(HelmChartTest.CHART).install().withName("fab").withNamespace("monitoring").dryRun()
                .clientOnly().set("kubePrometheusStack.release", STACK).call().getOutput();
        assertThat(set).doesNotContain("WARNING: no release label").contains("labelled release=" + STACK);
    }

    @Test
    void theSelectorRulesThemselves() {
        assertThat(matches(new LabelSelector(), Map.of())).isTrue();
        assertThat(matches(STACK_SERVICE_MONITORS, Map.of("release", "other"))).isFalse();
        LabelSelector expr = new LabelSelectorBuilder().addNewMatchExpression().withKey("tier").withOperator("In").withValues("a", "b")
                .endMatchExpression().addNewMatchExpression().withKey("x").withOperator("DoesNotExist").endMatchExpression().build();
        assertThat(matches(expr, Map.of("tier", "a"))).isTrue();
        assertThat(matches(expr, Map.of("tier", "c"))).isFalse();
        assertThat(matches(expr, Map.of("tier", "a", "x", ""))).isFalse();
    }

    static List<String> repositoryDashboards() {
        try (Stream<Path> s = Files.list(HelmChartTest.REPO.resolve("dashboards/grafana"))) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".json")).sorted().toList();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
