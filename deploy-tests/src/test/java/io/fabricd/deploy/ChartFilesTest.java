package io.fabricd.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.marcnuri.helm.Helm;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart as committed packages on its own: no link leaves it, its copies of the alert rules and
 * dashboards are those of alerts/ and dashboards/grafana/ byte for byte (tools/alerts.py and
 * tools/dashboards.py write both), its version is the project's, and `helm package` gives a tarball
 * holding every file of the chart.
 */
class ChartFilesTest {
    static final Path CHART = HelmChartTest.CHART;

    @Test
    void noSymbolicLinksInTheChart() throws IOException {
        try (Stream<Path> s = Files.walk(CHART)) {
            assertThat(s.filter(Files::isSymbolicLink).toList()).isEmpty();
        }
    }

    @Test
    void alertRulesAndDashboardsAreTheRepositorysOwn() throws IOException {
        assertThat(files(CHART.resolve("files/alerts"), ".rules.yaml")).isEqualTo(files(HelmChartTest.REPO.resolve("alerts"), ".rules.yaml"));
        assertThat(files(CHART.resolve("files/dashboards"), ".json")).isEqualTo(files(HelmChartTest.REPO.resolve("dashboards/grafana"), ".json"));
    }

    @Test
    void theChartsVersionIsTheProjects() throws IOException {
        String pom = Files.readString(HelmChartTest.REPO.resolve("pom.xml"));
        String version = pom.replaceFirst("(?s).*?<artifactId>fabricd-parent</artifactId>\\s*<version>([^<]+)</version>.*", "$1");
        String chart = Files.readString(CHART.resolve("Chart.yaml"));
        assertThat(chart).containsPattern("(?m)^version: " + Pattern.quote(version) + "$")
                .containsPattern("(?m)^appVersion: \"" + Pattern.quote(version) + "\"$");
    }

    @Test
    void helmPackageHoldsEveryFile(@TempDir Path out) throws IOException {
        new Helm(CHART).packageIt().withDestination(out).call();
        List<Path> tgz;
        try (Stream<Path> s = Files.list(out)) {
            tgz = s.filter(p -> p.toString().endsWith(".tgz")).toList();
        }
        assertThat(tgz).hasSize(1);
        List<String> inTar = tarNames(tgz.get(0));
        List<String> inChart = new ArrayList<>();
        try (Stream<Path> s = Files.walk(CHART)) {
            s.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)).forEach(p -> inChart.add("fabricd/" + CHART.relativize(p)));
        }
        assertThat(inTar).containsExactlyInAnyOrderElementsOf(inChart);
    }

    static Map<String, String> files(Path dir, String suffix) throws IOException {
        Map<String, String> m = new TreeMap<>();
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : s.filter(p -> p.getFileName().toString().endsWith(suffix)).toList()) {
                m.put(p.getFileName().toString(), Files.readString(p));
            }
        }
        assertThat(m).isNotEmpty();
        return m;
    }

    /** Names of the regular files in a .tgz (ustar/pax headers read directly: 512-byte blocks). */
    static List<String> tarNames(Path tgz) throws IOException {
        List<String> names = new ArrayList<>();
        try (InputStream in = new GZIPInputStream(Files.newInputStream(tgz))) {
            byte[] h = new byte[512];
            String paxName = null;
            while (in.readNBytes(h, 0, 512) == 512) {
                if (h[0] == 0) {
                    break;
                }
                String name = cstr(h, 0, 100);
                String prefix = cstr(h, 345, 155);
                long size = Long.parseLong(cstr(h, 124, 12).trim().isEmpty() ? "0" : cstr(h, 124, 12).trim(), 8);
                byte type = h[156];
                byte[] body = in.readNBytes((int) ((size + 511) / 512 * 512));
                if (type == 'x') {
                    for (String line : new String(body, 0, (int) size, StandardCharsets.UTF_8).split("\n")) {
                        int sp = line.indexOf(' ');
                        if (sp > 0 && line.substring(sp + 1).startsWith("path=")) {
                            paxName = line.substring(sp + 6);
                        }
                    }
                    continue;
                }
                String full = paxName != null ? paxName : prefix.isEmpty() ? name : prefix + "/" + name;
                paxName = null;
                if (type == '0' || type == 0) {
                    names.add(full);
                }
            }
        }
        return names;
    }

    static String cstr(byte[] b, int off, int len) {
        int end = off;
        while (end < off + len && b[end] != 0) {
            end++;
        }
        return new String(b, off, end - off, StandardCharsets.US_ASCII);
    }
}
