package io.fabricd.gate;

import io.fabricd.collectors.files.FolderChain;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * {@code --exclude-file F}: the excluded nodes as one Slurm hostlist and a newline (an empty file
 * when none is); {@code --exclude-list F}: one line per excluded node, name, verdict and reason
 * ({@link GateReport#excludedLines()}). Written whole or not at all: a temporary file in the same
 * folder renamed over F, in a folder only root and this user can change ({@link FolderChain}), as
 * every file fabricd writes.
 */
public final class ExcludeFile {
    private ExcludeFile() {
    }

    /** The hostlist and a newline to {@code file}; an empty file when {@code hostlist} is empty. */
    public static void write(Path file, String hostlist) throws IOException {
        write("--exclude-file", file, hostlist.isEmpty() ? "" : hostlist + "\n");
    }

    /** {@code text} to {@code file}, whole or not at all; {@code option} names it in errors. */
    public static void write(String option, Path file, String text) throws IOException {
        Path name = file.getFileName();
        if (name == null) {
            throw new IOException(option + " " + file + " names no file");
        }
        Path parent = file.toAbsolutePath().getParent();
        Path dir;
        try {
            dir = FolderChain.check(parent);
        } catch (NoSuchFileException e) {
            throw new IOException(option + " " + file + ": folder " + parent + " does not exist");
        } catch (FolderChain.Refused e) {
            throw new IOException(option + " " + file + ": " + e.getMessage());
        }
        Path target = dir.resolve(name);
        if (Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException(option + " " + file + " is a folder: give a file name");
        }
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        Path tmp = null;
        for (int i = 0; tmp == null; i++) {
            Path t = dir.resolve("." + name + "." + ProcessHandle.current().pid() + "." + i + ".tmp");
            try (OutputStream out = Files.newOutputStream(t, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS)) {
                out.write(bytes);
                tmp = t;
            } catch (FileAlreadyExistsException e) {
                if (i > 100) {
                    throw new IOException(option + " " + file + ": cannot make a temporary file beside it (" + t + " exists)");
                }
            } catch (IOException e) {
                throw new IOException(option + " " + file + ": cannot write in " + dir + " (" + e.getMessage() + ")");
            }
        }
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
                ch.force(true);
            }
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
