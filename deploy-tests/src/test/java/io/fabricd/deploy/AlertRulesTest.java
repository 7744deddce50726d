package io.fabricd.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rule files follow docs/alerts.md's policy, and are what tools/alerts.py writes: every alert
 * has a `for:`, a severity of the policy, a category, a summary, a description and a runbook link
 * under the documented base; no aggregation drops the target's labels with `by (instance, ...)`; a
 * label that may be empty is printed only inside `with` (the generator's subject and host helpers).
 */
class AlertRulesTest {
    static final Path DIR = Paths.repo().resolve("alerts");
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    @Test
    void everyRuleFollowsThePolicy() throws Exception {
        int alerts = 0;
        for (Path f : files()) {
            for (JsonNode g : YAML.readTree(f.toFile()).get("groups")) {
                for (JsonNode r : g.get("rules")) {
                    String expr = r.get("expr").asText();
                    assertThat(expr).as(f + ": keep job, namespace, node and cluster").doesNotContainPattern("by \\(instance");
                    if (!r.has("alert")) {
                        continue;
                    }
                    alerts++;
                    String name = r.get("alert").asText();
                    assertThat(r.has("for")).as(name + " has a for:").isTrue();
                    JsonNode labels = r.get("labels");
                    assertThat(labels.has("category")).as(name).isTrue();
                    if (labels.has("severity")) {
                        assertThat(labels.get("severity").asText()).as(name).isIn("critical", "warning", "info");
                    } else {
                        // the severity is the finding's own (critical or warning)
                        assertThat(expr).as(name).contains("fabric_finding{").contains("severity=~\"critical|warning\"");
                    }
                    JsonNode a = r.get("annotations");
                    assertThat(a.get("runbook_url").asText()).as(name).startsWith("https://github.com/fabricd/fabricd/blob/main/docs/");
                    for (String k : List.of("summary", "description")) {
                        String text = a.get(k).asText();
                        assertThat(text).as(name + " " + k).isNotBlank().doesNotContain("/api/v1/findings").doesNotContain("=}}")
                                .doesNotContainPattern("[a-z]+=\\{\\{ \\$labels");
                        // the host is its node, else its instance
                        if (text.contains("$labels.node")) {
                            assertThat(text).as(name + " " + k).contains("{{ with $labels.node }}{{ . }}{{ else }}{{ $labels.instance }}{{ end }}");
                        }
                    }
                }
            }
        }
        assertThat(alerts).isGreaterThan(30);
    }

    @Test
    void theGeneratorTakesNoOptionForItsFolder(@TempDir Path tmp) throws Exception {
        Generators.refusesAnOptionForAFolder("tools/alerts.py", tmp);
    }

    @Test
    void theRuleFilesAreWhatTheGeneratorWrites(@TempDir Path tmp) throws Exception {
        Generators.Run run = Generators.run("tools/alerts.py", tmp, tmp.toString());
        assertThat(run.code()).as(run.output()).isZero();
        try (Stream<Path> written = Files.list(tmp)) {
            List<Path> w = written.sorted().toList();
            assertThat(w.stream().map(x -> x.getFileName().toString()).toList())
                    .isEqualTo(files().stream().map(x -> x.getFileName().toString()).toList());
            for (Path f : w) {
                assertThat(Files.readString(DIR.resolve(f.getFileName()))).as(f.getFileName() + " is stale: run python3 tools/alerts.py")
                        .isEqualTo(Files.readString(f));
            }
        }
    }

    @Test
    void everyAlertHasARunbookSectionWhereItsLinkPoints() throws Exception {
        Pattern link = Pattern.compile("runbook_url: https://github.com/fabricd/fabricd/blob/main/docs/([a-z]+\\.md)#([a-z0-9_-]+)");
        for (Path f : files()) {
            Matcher m = link.matcher(Files.readString(f));
            while (m.find()) {
                String doc = Files.readString(Paths.repo().resolve("docs").resolve(m.group(1)));
                Set<String> anchors = anchors(doc);
                assertThat(anchors).as(f.getFileName() + " links " + m.group(1) + "#" + m.group(2)).contains(m.group(2));
            }
        }
    }

    /** GitHub's anchors of a Markdown page's headings: lower case, spaces to dashes, punctuation dropped. */
    static Set<String> anchors(String markdown) {
        Set<String> out = new TreeSet<>();
        for (String line : markdown.split("\\n")) {
            if (line.startsWith("#")) {
                String h = line.replaceFirst("^#+\\s*", "").strip().toLowerCase(Locale.ROOT);
                out.add(h.replaceAll("[^a-z0-9 _-]", "").replace(' ', '-'));
            }
        }
        return out;
    }

    static List<Path> files() throws Exception {
        try (Stream<Path> s = Files.list(DIR)) {
            return s.filter(p -> p.toString().endsWith(".rules.yaml")).sorted().toList();
        }
    }
}
