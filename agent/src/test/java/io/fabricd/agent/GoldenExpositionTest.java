package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.collectors.Fixtures;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The whole {@code /metrics} text of fixture hosts, as {@code fabricd metrics --root HOST} prints it
 * (the agent's families of the host and its findings), against the files committed in
 * {@code src/test/resources/golden/}: a renamed family or label, a lost or new series shows here and
 * in the review's diff. Volatile values are normalised (see {@link #normalise}). A deliberate change
 * rewrites the files: {@code bin/golden --update} (docs/testing.md).
 */
class GoldenExpositionTest {
    /** Set by {@code bin/golden --update}: write the files instead of comparing with them. */
    static final boolean UPDATE = Boolean.getBoolean("golden.update");
    static final Path DIR = Path.of("src/test/resources/golden");
    /** Families whose values are timings of this run: written as 0. */
    static final Pattern VOLATILE = Pattern.compile("^(fabric_collector_duration_seconds(\\{[^}]*})?) \\S+$");

    @TempDir
    static Path tmp;

    /** golden file name, fixture: the demo, an InfiniBand host, a RoCE host, a broken host, real captures. */
    static Stream<String[]> hosts() {
        return Stream.of(
                new String[] {"demo", "demo"},
                new String[] {"host-a-ib", "host-a-ib"},
                new String[] {"host-b-roce", "host-b-roce"},
                new String[] {"host-broken", "host-broken"},
                new String[] {"real-gpud-h100-mlx5_1", "real/gpud-h100-mlx5_1"},
                new String[] {"real-h100-some-down", "real/h100-some-down"});
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("hosts")
    void exposition(String name, String fixture) throws IOException {
        // the demo at time zero: its counters as bundled (fabricd metrics --demo advances them with the clock)
        Path root = fixture.equals("demo") ? Fixtures.demo(tmp.resolve("demo")) : Fixtures.host(fixture);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.execute(new String[] {"metrics", "--root", root.toString()}, new PrintWriter(out, true),
                new PrintWriter(err, true));
        assertThat(code).as("fabricd metrics --root %s: %s", fixture, err).isZero();
        String actual = normalise(out.toString());
        Path file = DIR.resolve(name + ".prom");
        if (UPDATE) {
            Files.createDirectories(DIR);
            Files.writeString(file, actual, StandardCharsets.UTF_8);
            return;
        }
        assertThat(file).as("%s is missing: bin/golden --update writes it", file).exists();
        String expected = Files.readString(file, StandardCharsets.UTF_8);
        if (!expected.equals(actual)) {
            throw new AssertionError("/metrics of " + fixture + " differs from " + file + " (- committed, + now); if the change is "
                    + "meant, run bin/golden --update and review the diff:\n" + diff(expected, actual));
        }
    }

    /**
     * The rule for volatile values: every sample of {@code fabric_collector_duration_seconds} (how
     * long this run's collectors took) has the value 0. Everything else of a snapshot is fixed.
     */
    static String normalise(String text) {
        StringBuilder b = new StringBuilder(text.length());
        for (String line : text.split("\n", -1)) {
            Matcher m = VOLATILE.matcher(line);
            b.append(m.matches() ? m.group(1) + " 0" : line).append('\n');
        }
        return b.substring(0, b.length() - 1);
    }

    /** The lines only one side has, in order: the exposition is sorted, so that reads as a diff. */
    static String diff(String expected, String actual) {
        Set<String> was = new LinkedHashSet<>(List.of(expected.split("\n")));
        Set<String> now = new LinkedHashSet<>(List.of(actual.split("\n")));
        List<String> out = new ArrayList<>();
        was.stream().filter(l -> !now.contains(l)).forEach(l -> out.add("- " + l));
        now.stream().filter(l -> !was.contains(l)).forEach(l -> out.add("+ " + l));
        if (out.isEmpty()) {
            return "the same lines in another order or repeated: compare the files with diff";
        }
        return out.size() > 200 ? String.join("\n", out.subList(0, 200)) + "\n... " + (out.size() - 200) + " more lines"
                : String.join("\n", out);
    }
}
