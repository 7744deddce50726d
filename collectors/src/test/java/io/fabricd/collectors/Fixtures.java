package io.fabricd.collectors;

import io.fabricd.collectors.source.SnapshotHostSource;
import io.fabricd.collectors.source.Ttar;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

/** Finds the shared test fixtures (collectors/src/test/fixtures) from any module's tests. */
public final class Fixtures {
    private Fixtures() {
    }

    public static Path dir() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null) {
            Path f = p.resolve("collectors/src/test/fixtures");
            if (Files.isDirectory(f)) {
                return f;
            }
            p = p.getParent();
        }
        throw new IllegalStateException("collectors/src/test/fixtures not found above " + Path.of("").toAbsolutePath());
    }

    public static Path host(String name) {
        return dir().resolve(name);
    }

    public static SnapshotHostSource open(String name) {
        return SnapshotHostSource.open(host(name));
    }

    /**
     * Copies fixture {@code name} into {@code dest} with its links as links ({@code cp -rP}: a
     * fixture's sysfs links must stay relative links for the readers to follow them as on /sys).
     */
    public static Path copy(String name, Path dest) {
        try {
            Process p = new ProcessBuilder("cp", "-rP", host(name) + "/.", dest.toString()).inheritIO().start();
            if (p.waitFor() != 0) {
                throw new IllegalStateException("cp -rP " + host(name) + " " + dest + " failed");
            }
            return dest;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * The config space in an {@code lspci -xxxx} dump under real/captures/ (lines "OFFSET: HH HH ..."
     * after the device line), as sysfs' {@code config} holds it.
     */
    public static byte[] lspciDump(String capture) {
        try {
            byte[] out = new byte[4096];
            int end = 0;
            for (String line : Files.readAllLines(dir().resolve("real/captures/" + capture))) {
                int colon = line.indexOf(": ");
                if (colon < 0 || !line.substring(0, colon).matches("[0-9a-f]{2,3}")) {
                    continue;
                }
                int at = Integer.parseInt(line.substring(0, colon), 16);
                String[] hex = line.substring(colon + 2).trim().split(" ");
                for (int i = 0; i < hex.length; i++) {
                    out[at + i] = (byte) Integer.parseInt(hex[i], 16);
                }
                end = Math.max(end, at + hex.length);
            }
            return Arrays.copyOf(out, end);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Extracts prometheus/procfs's InfiniBand fixtures into {@code dest} (dest/sys/class/infiniband/...). */
    public static Path procfs(Path dest) {
        return ttar("procfs-infiniband.ttar", "fixtures/", dest);
    }

    /**
     * Extracts node_exporter's own InfiniBand fixture tree (real/node-exporter-infiniband.ttar: an
     * mlx4 with {@code counters_ext/}, an i40iw whose PMA answers "N/A (no PMA)") into {@code dest}.
     */
    public static Path nodeExporter(Path dest) {
        return ttar("real/node-exporter-infiniband.ttar", "", dest);
    }

    /**
     * The bundled demo host (tools/hostgen.py host_demo: every tracked PCI function with a whole
     * config space), unpacked into {@code dest}.
     */
    public static Path demo(Path dest) {
        try (InputStream in = Fixtures.class.getResourceAsStream("/io/fabricd/demo/demo-host.ttar")) {
            Files.createDirectories(dest);
            Ttar.extract(new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)), dest, "");
            return dest;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Makes the snapshot at {@code root} what {@code fabricd snapshot} writes without CAP_SYS_ADMIN:
     * every PCI function's {@code config} cut to the {@code bytes} the kernel gives such a reader (64).
     *
     * @return the configs cut, as paths relative to {@code root}
     */
    public static List<String> truncateConfigSpaces(Path root, int bytes) {
        try (Stream<Path> files = Files.walk(root.resolve("sys/devices"))) {
            List<Path> configs = files.filter(f -> f.getFileName().toString().equals("config") && Files.isRegularFile(f,
                    LinkOption.NOFOLLOW_LINKS)).sorted().toList();
            for (Path f : configs) {
                byte[] b = Files.readAllBytes(f);
                Files.write(f, Arrays.copyOf(b, Math.min(bytes, b.length)));
            }
            return configs.stream().map(f -> root.relativize(f).toString()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path ttar(String file, String prefix, Path dest) {
        try (BufferedReader r = Files.newBufferedReader(dir().resolve(file), StandardCharsets.UTF_8)) {
            Ttar.extract(r, dest, prefix);
            return dest;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
