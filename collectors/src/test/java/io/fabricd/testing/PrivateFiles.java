package io.fabricd.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/** Secrets for tests (probe keys) written as an operator should: readable by the owner only. */
public final class PrivateFiles {
    private PrivateFiles() {
    }

    /** {@code text} in a new file of mode 0600. */
    public static Path write(Path file, String text) throws IOException {
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        return Files.writeString(file, text);
    }
}
