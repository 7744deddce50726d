package io.fabricd.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.model.metrics.MetricCatalogue;
import io.fabricd.model.metrics.MetricFamily;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The metric families of the catalogue ({@code io.fabricd.model.metrics}) against what names them
 * outside the code: the alert rules and dashboards use only declared families, docs/metrics.md
 * documents every declared family with its type and labels, and docs/spec/interfaces.md's table
 * names only declared families, with their types and labels.
 */
class MetricNamesTest {
    private static final Pattern NAME = Pattern.compile("\\bfabric_[a-z0-9_]*[a-z0-9]\\b");
    /** What Prometheus adds to a family's name in its series: histogram and summary parts, counters' _total. */
    private static final List<String> SUFFIXES = List.of("_bucket", "_count", "_sum", "_max", "_total", "_created");

    /** The family a series or family name in a query belongs to. */
    static Optional<MetricFamily> family(String name) {
        Optional<MetricFamily> f = MetricCatalogue.byExposedName(name);
        for (int i = 0; f.isEmpty() && i < SUFFIXES.size(); i++) {
            if (name.endsWith(SUFFIXES.get(i))) {
                f = MetricCatalogue.byExposedName(name.substring(0, name.length() - SUFFIXES.get(i).length()));
            }
        }
        return f;
    }

    @Test
    void alertRulesAndDashboardsUseOnlyDeclaredFamilies() throws IOException {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> alerts = Files.list(Paths.repo().resolve("alerts"));
             Stream<Path> dashboards = Files.list(Paths.repo().resolve("dashboards/grafana"))) {
            alerts.filter(p -> p.toString().endsWith(".rules.yaml")).forEach(files::add);
            dashboards.filter(p -> p.toString().endsWith(".json")).forEach(files::add);
        }
        assertThat(files).hasSizeGreaterThan(4);
        Set<String> unknown = new TreeSet<>();
        Set<MetricFamily> used = new LinkedHashSet<>();
        for (Path file : files) {
            Matcher m = NAME.matcher(Files.readString(file));
            while (m.find()) {
                Optional<MetricFamily> f = family(m.group());
                f.ifPresent(used::add);
                if (f.isEmpty()) {
                    unknown.add(file.getFileName() + ": " + m.group());
                }
            }
        }
        assertThat(unknown).as("families the rules and dashboards use but fabricd does not declare").isEmpty();
        assertThat(used).as("the rules and dashboards use the catalogue").hasSizeGreaterThan(20);
    }

    /** One row of a docs table of families: the names it documents, its type word and its label names. */
    record Row(String line, List<String> names, String type, List<String> labels) {
    }

    /** The rows of a page's family tables: those whose first cell names a {@code fabric_} family. */
    static List<Row> rows(String page) throws IOException {
        List<Row> out = new ArrayList<>();
        for (String line : Files.readAllLines(Paths.repo().resolve(page))) {
            if (!line.startsWith("| `fabric_")) {
                continue;
            }
            List<String> cells = cells(line);
            List<String> names = new ArrayList<>();
            Matcher code = Pattern.compile("`([^`]*)`").matcher(cells.get(0));
            while (code.find()) {
                names.add(code.group(1));
            }
            String type = cells.get(1).strip().split("[ (]")[0];
            List<String> labels = Arrays.stream(cells.get(2).replaceAll("\\([^)]*\\)", "").replace("`", "").split(","))
                    .map(String::strip).filter(l -> l.matches("[a-z_0-9]+")).toList();
            out.add(new Row(line, names, type, labels));
        }
        return out;
    }

    /** A table row's cells; a '|' inside backticks is text. */
    static List<String> cells(String line) {
        List<String> cells = new ArrayList<>();
        StringBuilder cell = new StringBuilder();
        boolean code = false;
        for (char c : line.substring(1).toCharArray()) {
            if (c == '`') {
                code = !code;
            }
            if (c == '|' && !code) {
                cells.add(cell.toString());
                cell.setLength(0);
            } else {
                cell.append(c);
            }
        }
        return cells;
    }

    /** What is wrong with the page's rows against the catalogue, one line each. */
    static List<String> problems(List<Row> rows) {
        List<String> out = new ArrayList<>();
        for (Row r : rows) {
            for (String name : r.names()) {
                Optional<MetricFamily> f = MetricCatalogue.byExposedName(name);
                if (f.isEmpty() || !f.get().exposedName().equals(name)) {
                    out.add(name + ": not a declared family (counters end in _total; a name is written whole)");
                    continue;
                }
                MetricFamily d = f.get();
                if (!d.type().word().equals(r.type())) {
                    out.add(name + ": documented as " + r.type() + ", declared as " + d.type().word());
                }
                boolean labelsRight = d.moreLabels() == null ? new TreeSet<>(r.labels()).equals(new TreeSet<>(d.labels()))
                        : r.labels().containsAll(d.labels());
                if (!labelsRight) {
                    out.add(name + ": documented labels " + r.labels() + ", declared " + d.labels()
                            + (d.moreLabels() == null ? "" : " and " + d.moreLabels()));
                }
            }
        }
        return out;
    }

    @Test
    void metricsPageDocumentsEveryDeclaredFamilyAsDeclared() throws IOException {
        List<Row> rows = rows("docs/metrics.md");
        assertThat(problems(rows)).isEmpty();
        Set<String> documented = new TreeSet<>();
        rows.forEach(r -> documented.addAll(r.names()));
        assertThat(MetricCatalogue.ALL).extracting(MetricFamily::exposedName).allSatisfy(n ->
                assertThat(documented).as("docs/metrics.md documents %s", n).contains(n));
    }

    @Test
    void interfacesTableNamesDeclaredFamiliesAsDeclared() throws IOException {
        List<Row> rows = rows("docs/spec/interfaces.md");
        assertThat(rows).hasSizeGreaterThan(20);
        assertThat(problems(rows)).isEmpty();
    }

    @Test
    void aRowThatDiffersFromTheCatalogueIsFound() {
        List<Row> rows = List.of(
                new Row("", List.of("fabric_port_counter_total"), "counter", List.of("device", "port", "counter")),
                new Row("", List.of("fabric_port_up"), "counter", List.of("device", "port")),
                new Row("", List.of("fabric_port_pma_total"), "counter", List.of("device", "port")),
                new Row("", List.of("fabric_finding"), "gauge", List.of("check", "severity", "device")));
        assertThat(problems(rows)).containsExactly(
                "fabric_port_counter_total: not a declared family (counters end in _total; a name is written whole)",
                "fabric_port_up: documented as counter, declared as gauge",
                "fabric_port_pma_total: documented labels [device, port], declared [device, port, counter]");
    }
}
