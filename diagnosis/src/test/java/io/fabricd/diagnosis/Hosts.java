package io.fabricd.diagnosis;

import io.fabricd.diagnosis.run.Diagnosis;
import io.fabricd.model.finding.Finding;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabricd.collectors.CollectorConfig;
import io.fabricd.collectors.Fixtures;
import io.fabricd.collectors.run.HostCollection;
import io.fabricd.collectors.source.SnapshotHostSource;
import io.fabricd.collectors.source.Ttar;
import io.fabricd.model.HostModel;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Test hosts for the checks: the fixtures, editable copies of them (a planted fault is a few
 * changed files), the bundled demo, and collections at chosen times (rates).
 */
public final class Hosts {
    public static final Instant T0 = Instant.parse("2026-11-29T12:00:00Z");
    private static final ObjectMapper JSON = new ObjectMapper();

    private Hosts() {
    }

    public static HostModel model(String fixture) {
        return HostCollection.standard(CollectorConfig.DEFAULT).collect(Fixtures.open(fixture));
    }

    public static HostModel model(Path root) {
        return model(root, T0);
    }

    /** A collection of a snapshot folder, dated {@code at}. */
    public static HostModel model(Path root, Instant at) {
        return new HostCollection(HostCollection.defaultCollectors(), CollectorConfig.DEFAULT, Clock.fixed(at, ZoneOffset.UTC))
                .collect(SnapshotHostSource.open(root));
    }

    /** An editable copy of a fixture (cp -a keeps the links). */
    public static Path copy(String fixture, Path dest) {
        try {
            Process p = new ProcessBuilder("cp", "-a", Fixtures.host(fixture).toString(), dest.toString()).start();
            assertThat(p.waitFor()).isZero();
            return dest;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The bundled demo host, unpacked into {@code dest}. */
    public static Path demo(Path dest) {
        try (InputStream in = Hosts.class.getResourceAsStream("/io/fabricd/demo/demo-host.ttar")) {
            Files.createDirectories(dest);
            Ttar.extract(new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)), dest, "");
            return dest;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    public static void write(Path root, String rel, String content) {
        try {
            Path f = root.resolve(rel);
            Files.createDirectories(f.getParent());
            Files.writeString(f, content);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    public static void delete(Path root, String rel) {
        try {
            Files.delete(root.resolve(rel));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Replaces one line {@code "     name: value"} of an ethtool side-car (adds it when absent). */
    public static void stat(Path root, String netdev, String name, long value) {
        try {
            Path f = root.resolve("fabricd/ethtool/" + netdev + ".txt");
            List<String> lines = new ArrayList<>(Files.readAllLines(f));
            String line = "     " + name + ": " + value;
            int i = 0;
            while (i < lines.size() && !lines.get(i).strip().startsWith(name + ":")) {
                i++;
            }
            if (i < lines.size()) {
                lines.set(i, line);
            } else {
                lines.add(line);
            }
            String s = String.join("\n", lines) + "\n";
            Files.writeString(f, s);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Edits a JSON side-car in place. */
    public static void json(Path root, String rel, Consumer<ObjectNode> edit) {
        try {
            Path f = root.resolve(rel);
            ObjectNode n = (ObjectNode) JSON.readTree(f.toFile());
            edit.accept(n);
            JSON.writerWithDefaultPrettyPrinter().writeValue(f.toFile(), n);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The findings of one check in a full diagnosis. */
    public static List<Finding> of(HostModel current, HostModel previous, DiagnosisConfig config, String check) {
        return Diagnosis.run(current, previous, config).findings().stream().filter(f -> f.check().equals(check)).toList();
    }

    public static List<Finding> of(HostModel current, String check) {
        return of(current, null, DiagnosisConfig.DEFAULT, check);
    }
}
