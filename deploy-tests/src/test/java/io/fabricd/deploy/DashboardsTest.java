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
            assertThat(vars).as(title).containsExactly("datasource", "cluster", "rack", "host");
            Set<Integer> ids = new HashSet<>();
            for (JsonNode p : d.get("panels")) {
                String panel = title + ": " + p.get("title").asText();
                assertThat(ids.add(p.get("id").asInt())).as(panel + " id").isTrue();
                assertThat(p.at("/datasource/uid").asText()).as(panel).isEqualTo("${datasource}");
                assertThat(p.get("targets")).as(panel).isNotEmpty();
                for (JsonNode t : p.get("targets")) {
                    String expr = t.get("expr").asText();
                    assertThat(expr).as(panel).contains("fabric_").contains("cluster=~\"$cluster\"").contains("instance=~\"$host\"");
                    assertThat(t.at("/datasource/uid").asText()).as(panel).isEqualTo("${datasource}");
                }
                JsonNode pos = p.get("gridPos");
                assertThat(pos.get("x").asInt() + pos.get("w").asInt()).as(panel).isLessThanOrEqualTo(24);
            }
        }
    }

    @Test
    void theFilesAreWhatTheGeneratorWrites(@TempDir Path tmp) throws Exception {
        Process p = new ProcessBuilder("python3", Paths.repo().resolve("tools/dashboards.py").toString(), tmp.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as(out).isZero();
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
