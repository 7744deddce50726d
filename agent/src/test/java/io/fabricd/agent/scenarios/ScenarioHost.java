package io.fabricd.agent.scenarios;

import io.fabricd.collectors.Fixtures;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A fixture host copied to a folder of its own and changed in place as a scenario goes on: what a
 * real host's sysfs and side-cars would show at each minute (a counter that grows, a port that goes
 * down, a device whose driver unbinds). Paths are relative to the snapshot root and may go through
 * the snapshot's own links ({@code sys/class/infiniband/mlx5_0/...}).
 */
final class ScenarioHost {
    private final Path root;

    private ScenarioHost(Path root) {
        this.root = root;
    }

    /** A copy of fixture {@code name} in {@code dir}, booted a day before the scenario starts. */
    static ScenarioHost of(String name, Path dir, long bootTime) {
        ScenarioHost h = new ScenarioHost(Fixtures.copy(name, dir));
        h.boot(bootTime);
        return h;
    }

    Path root() {
        return root;
    }

    /** The host booted at {@code epochSeconds} (proc/stat btime, what fabricd reads in a fixture). */
    void boot(long epochSeconds) {
        write("proc/stat", "cpu  0 0 0 0 0 0 0 0 0 0\nbtime " + epochSeconds + "\n");
    }

    void write(String rel, String text) {
        try {
            Path p = root.resolve(rel);
            Files.createDirectories(p.getParent());
            Files.writeString(p, text.endsWith("\n") ? text : text + "\n", StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void writeBytes(String rel, byte[] b) {
        try {
            Files.write(root.resolve(rel), b);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    String read(String rel) {
        try {
            return Files.readString(root.resolve(rel), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A numeric file (a counter) grown by {@code delta}. */
    void add(String rel, long delta) {
        long v = Long.parseLong(read(rel).strip());
        write(rel, Long.toString(v + delta));
    }

    /** A port's state and physical state ("1: DOWN", "2: Polling"). */
    void port(String device, int port, String state, String phys) {
        write("sys/class/infiniband/" + device + "/ports/" + port + "/state", state);
        write("sys/class/infiniband/" + device + "/ports/" + port + "/phys_state", phys);
    }

    /** An {@code ethtool -S} statistic of a netdev's side-car grown by {@code delta} (added when missing). */
    void ethtool(String netdev, String stat, long delta) {
        String rel = "fabricd/ethtool/" + netdev + ".txt";
        String text = read(rel);
        Matcher m = Pattern.compile("(?m)^(\\s*" + Pattern.quote(stat) + ":\\s*)(\\d+)$").matcher(text);
        if (m.find()) {
            long v = Long.parseLong(m.group(2)) + delta;
            text = text.substring(0, m.start(2)) + v + text.substring(m.end(2));
        } else {
            text = text + "     " + stat + ": " + delta + "\n";
        }
        write(rel, text);
    }

    /** Removes a file, a link or a whole folder, never following a link. */
    void remove(String rel) {
        Path p = root.resolve(rel);
        try {
            if (Files.isSymbolicLink(p) || !Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                Files.deleteIfExists(p);
                return;
            }
            Files.walkFileTree(p, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path f, BasicFileAttributes a) throws IOException {
                    Files.delete(f);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                    Files.delete(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Copies a file or folder (links as links) to another place of the snapshot. */
    void copy(String from, String to) {
        Path src = root.resolve(from);
        Path dst = root.resolve(to);
        try {
            Path real = src.toRealPath();
            Path target = dst;
            Files.walkFileTree(real, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes a) throws IOException {
                    Files.createDirectories(target.resolve(real.relativize(d).toString()));
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path f, BasicFileAttributes a) throws IOException {
                    Path t = target.resolve(real.relativize(f).toString());
                    if (Files.isSymbolicLink(f)) {
                        Files.createSymbolicLink(t, Files.readSymbolicLink(f));
                    } else {
                        Files.copy(f, t);
                    }
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Moves a path (a link or a folder) aside, as a driver unbind or a hot unplug removes it; {@link #restore} brings it back. */
    void hide(String rel) {
        try {
            Path aside = root.resolve(".aside").resolve(rel);
            Files.createDirectories(aside.getParent());
            Files.move(root.resolve(rel), aside);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void restore(String rel) {
        try {
            Files.move(root.resolve(".aside").resolve(rel), root.resolve(rel));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The real folder behind a path of the snapshot (its links resolved), relative to the root. */
    String real(String rel) {
        try {
            return root.toRealPath().relativize(root.resolve(rel).toRealPath()).toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
