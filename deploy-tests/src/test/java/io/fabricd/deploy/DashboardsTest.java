package io.fabricd.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * dashboards/grafana: the shape Grafana and the sidecar need (their queries are evaluated against a
 * real Prometheus by PrometheusIT), and the files are what tools/dashboards.py writes.
 */
class DashboardsTest {
    static final Path DIR = Paths.repo().resolve("dashboards/grafana");
    static final ObjectMapper JSON = new ObjectMapper();

    static List<JsonNode> dashboards() throws Exception {
        List<JsonNode> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(DIR)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".json")).sorted().toList()) {
                out.add(JSON.readTree(f.toFile()));
            }
        }
        return out;
    }

    @Test
    void fourDashboardsWithTheTemplateVariablesAndEveryQueryScopedToThem() throws Exception {
        List<JsonNode> all = dashboards();
        assertThat(all).extracting(d -> d.get("uid").asText()).containsExactlyInAnyOrder("fabricd-config-audit", "fabricd-fleet",
                "fabricd-host", "fabricd-pingmesh");
        for (JsonNode d : all) {
            String title = d.get("title").asText();
            List<String> vars = new ArrayList<>();
            d.at("/templating/list").forEach(v -> vars.add(v.get("name").asText()));
            assertThat(vars).as(title).containsExactly("datasource", "cluster", "rack", "host", "instance");
            // hosts are picked by name (fabric_host_info's hostname); the scrape targets follow, hidden
            JsonNode host = d.at("/templating/list/3");
            assertThat(host.at("/query/query").asText()).as(title).contains("hostname");
            JsonNode targets = d.at("/templating/list/4");
            assertThat(targets.get("hide").asInt()).as(title).isEqualTo(2);
            assertThat(targets.at("/query/query").asText()).as(title).contains("hostname=~\"$host\"");
            // the cluster variable works without a cluster label: "All" is a match-anything regex
            assertThat(d.at("/templating/list/1/allValue").asText()).isEqualTo(".*");
            if (d.get("uid").asText().equals("fabricd-host")) {
                assertThat(host.get("includeAll").asBoolean()).as("the drill-down opens on one host").isFalse();
                assertThat(host.get("multi").asBoolean()).isFalse();
            }
            Set<Integer> ids = new HashSet<>();
            for (JsonNode p : d.get("panels")) {
                String panel = title + ": " + p.get("title").asText();
                assertThat(ids.add(p.get("id").asInt())).as(panel + " id").isTrue();
                assertThat(p.at("/datasource/uid").asText()).as(panel).isEqualTo("${datasource}");
                assertThat(p.get("targets")).as(panel).isNotEmpty();
                for (JsonNode t : p.get("targets")) {
                    String expr = t.get("expr").asText();
                    assertThat(expr).as(panel).contains("fabric").contains("cluster=~\"$cluster\"");
                    if (!expr.startsWith("fabric:")) {
                        assertThat(expr).as(panel).contains("instance=~\"$instance\"");
                    }
                    // hosts by name, never by IP:port
                    assertThat(t.path("legendFormat").asText()).as(panel).doesNotContain("{{instance}}");
                    if (expr.contains("_bytes_total") || expr.contains("rate_bytes_per_second")) {
                        assertThat(expr).as(panel + ": link and traffic in bits per second").contains("* 8");
                    }
                    assertThat(t.at("/datasource/uid").asText()).as(panel).isEqualTo("${datasource}");
                }
                String unit = p.at("/fieldConfig/defaults/unit").asText();
                assertThat(unit).as(panel + " has a unit").isNotBlank().isNotIn("Bps", "bytes");
                JsonNode pos = p.get("gridPos");
                assertThat(pos.get("x").asInt() + pos.get("w").asInt()).as(panel).isLessThanOrEqualTo(24);
            }
        }
    }

    @Test
    void theGeneratorTakesNoOptionForItsFolder(@TempDir Path tmp) throws Exception {
        Generators.refusesAnOptionForAFolder("tools/dashboards.py", tmp);
    }

    @Test
    void theFilesAreWhatTheGeneratorWrites(@TempDir Path tmp) throws Exception {
        Generators.Run run = Generators.run("tools/dashboards.py", tmp, tmp.toString());
        assertThat(run.code()).as(run.output()).isZero();
        try (Stream<Path> files = Files.list(tmp)) {
            List<Path> written = files.sorted().toList();
            assertThat(written).hasSize(4);
            for (Path f : written) {
                assertThat(Files.readString(DIR.resolve(f.getFileName())))
                        .as(f.getFileName() + " is stale: run python3 tools/dashboards.py").isEqualTo(Files.readString(f));
            }
        }
    }
}
