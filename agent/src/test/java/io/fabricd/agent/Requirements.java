package io.fabricd.agent;

import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Tests that need a system program: on a developer machine without it they are skipped with the
 * install hint; in CI (CI=true, where .ci/run installs everything) its absence fails the test.
 */
public final class Requirements {
    private Requirements() {
    }

    public static Path program(String name, String installHint) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
            Path p = Path.of(dir, name);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        String msg = name + " is not installed (" + installHint + ")";
        if ("true".equals(System.getenv("CI"))) {
            fail(msg);
        }
        assumeTrue(false, msg);
        return null;
    }

    /** A condition the test needs (root, a kernel feature): skipped without it, failed in CI. */
    public static void require(boolean met, String what) {
        if (met) {
            return;
        }
        if ("true".equals(System.getenv("CI"))) {
            fail("needs " + what);
        }
        assumeTrue(false, "needs " + what);
    }

    public static Path repoRoot() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isRegularFile(p.resolve("bin/fabricd"))) {
            p = p.getParent();
        }
        if (p == null) {
            throw new IllegalStateException("repository root not found");
        }
        return p;
    }
}
