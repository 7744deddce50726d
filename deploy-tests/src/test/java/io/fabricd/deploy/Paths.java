package io.fabricd.deploy;

import java.nio.file.Files;
import java.nio.file.Path;

final class Paths {
    private Paths() {
    }

    /** The repository root: the nearest folder above the working directory holding bin/fabricd. */
    static Path repo() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isRegularFile(p.resolve("bin/fabricd"))) {
            p = p.getParent();
        }
        if (p == null) {
            throw new IllegalStateException("repository root (bin/fabricd) not found above " + Path.of("").toAbsolutePath());
        }
        return p;
    }
}
