package io.fabricd.collectors.kernel.live;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.collectors.CollectorConfig;
import io.fabricd.collectors.Fixtures;
import io.fabricd.collectors.run.HostCollection;
import io.fabricd.collectors.source.LiveHostSource;
import io.fabricd.model.CollectorRun;
import io.fabricd.model.HostModel;
import io.fabricd.model.PortAttrs;
import io.fabricd.natives.VerbsShim;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * libibverbs (or fabricd's verbs shim) missing on a live host: a JVM that cannot load
 * the shim still collects every device and port of a real Soft-RoCE host copy through the live
 * reader, says why verbs are unavailable, and derives the RoCE active MTU from the netdev MTU.
 */
class VerbsMissingTest {
    /** Runs in the child JVM: one live collection, printed as key=value lines. */
    public static void main(String[] args) throws Exception {
        try (LiveHostSource live = new LiveHostSource(Path.of(args[0]), Duration.ofSeconds(2))) {
            HostModel m = HostCollection.standard(CollectorConfig.DEFAULT).collect(live);
            System.out.println("unavailable=" + VerbsShim.load().unavailable());
            System.out.println("ports=" + m.ports().size());
            for (CollectorRun r : m.collectors()) {
                System.out.println("collector." + r.name() + "=" + r.ok() + " " + r.errors());
            }
            for (PortAttrs a : m.portAttrs()) {
                System.out.println("mtu." + a.device() + "=" + a.activeMtu() + " " + a.mtuSource());
            }
        }
    }

    /** The test classpath (surefire passes it in a property; java.class.path is its booter jar). */
    static String classpath() {
        return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    }

    /**
     * The test classpath with native-shims' Java binding but without its shared library: its classes
     * (a folder in the reactor, a jar otherwise) copied into {@code tmp} without the .so.
     */
    static String classpathWithoutShim(Path tmp) throws IOException {
        List<String> out = new ArrayList<>();
        for (String e : classpath().split(File.pathSeparator)) {
            if (!e.contains("native-shims")) {
                out.add(e);
                continue;
            }
            Path copy = Files.createDirectories(tmp.resolve("native-shims-without-library"));
            Path from = Path.of(e);
            if (Files.isDirectory(from)) {
                copyClasses(from, copy);
            } else {
                try (FileSystem jar = FileSystems.newFileSystem(from)) {
                    copyClasses(jar.getPath("/"), copy);
                }
            }
            out.add(copy.toString());
        }
        return String.join(File.pathSeparator, out);
    }

    private static void copyClasses(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                Path target = to.resolve(from.relativize(f).toString());
                Files.createDirectories(target.getParent());
                Files.copy(f, target);
            }
        }
    }

    static List<String> run(Path root, String classpath, String... jvmFlags) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(java));
        cmd.addAll(List.of(jvmFlags));
        cmd.addAll(List.of("-cp", classpath, VerbsMissingTest.class.getName(), root.toString()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(out).isZero();
        return out.lines().toList();
    }

    static Path host(Path tmp) throws Exception {
        return Fixtures.copy("real-softroce-6.1", tmp);
    }

    @Test
    void withoutTheVerbsShimEverythingElseIsCollectedAndTheMtuDerived(@TempDir Path tmp) throws Exception {
        // the shim (native-shims' libfabricd_verbs.so, linked to libibverbs) is not on the class path
        // and not in any library path: what a host without libibverbs sees
        List<String> lines = run(host(tmp), classpathWithoutShim(tmp), "-Djna.library.path=/nonexistent");
        String out = String.join("\n", lines);
        assertThat(lines).as(out).anyMatch(l -> l.startsWith("unavailable=the verbs shim or libibverbs is not available"));
        assertThat(lines).as(out).anyMatch(l -> l.matches("ports=[1-9][0-9]*"));
        assertThat(lines).as(out).filteredOn(l -> l.startsWith("collector.")).hasSizeGreaterThan(5)
                .allMatch(l -> l.contains("=true"));
        assertThat(lines).as(out).filteredOn(l -> l.startsWith("mtu.rxe")).isNotEmpty().allMatch(l -> l.endsWith(" derived"));
    }

    @Test
    void withoutJnaItselfOnlyTheNativeCollectorsFail(@TempDir Path tmp) throws Exception {
        // JNA's own native part cannot load either (a locked-down /tmp, a foreign libc): the
        // collectors that need it fail one by one, the file-reading ones still deliver the ports
        List<String> lines = run(host(tmp), classpath(), "-Djna.noclasspath=true", "-Djna.nosys=true",
                "-Djna.library.path=/nonexistent", "-Djna.boot.library.path=/nonexistent");
        String out = String.join("\n", lines);
        assertThat(lines).as(out).anyMatch(l -> l.matches("ports=[1-9][0-9]*"));
        assertThat(lines).as(out).anyMatch(l -> l.startsWith("collector.rdma=true"));
        assertThat(lines).as(out).anyMatch(l -> l.startsWith("collector.netdev=true"));
        assertThat(lines).as(out).anyMatch(l -> l.startsWith("collector.ethtool=false") && l.contains("collector failed"));
    }
}
