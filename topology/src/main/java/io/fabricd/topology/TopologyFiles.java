package io.fabricd.topology;

import io.fabricd.model.topology.Topology;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.ByteBuffer;

/**
 * Reads a topology file: Slurm's topology.conf (tree or block plugin) or fabricd's plain file
 * (docs/topology.md). Which one is told by the file's first line that is not a comment: Slurm's
 * lines start with {@code Key=Value} (SwitchName=, BlockName=, BlockSizes=), the plain file's with a
 * node or hostlist. The file's name plays no part.
 */
public final class TopologyFiles {
    /** The largest file read (a topology.conf of 100 000 nodes is a few MiB). */
    public static final int MAX_BYTES = 32 << 20;

    /** The two formats. */
    public enum Format {
        /** Slurm's topology.conf; placements' source SLURM. */
        SLURM,
        /** fabricd's plain file; placements' source FILE. */
        PLAIN
    }

    private TopologyFiles() {
    }

    /**
     * The topology the file describes.
     *
     * @throws TopologyFileException "FILE:LINE: what is wrong, what to do" for its contents, "FILE: ..."
     *         when it cannot be read (absent, a folder, not UTF-8, too large)
     */
    public static Topology read(Path file) {
        String name = file.toString();
        return parse(name, text(file, name));
    }

    /** The topology {@code text} describes, {@code name} in its messages. */
    public static Topology parse(String name, String text) {
        if (format(text) == Format.PLAIN) {
            return PlainTopologyFile.parse(name, text);
        }
        try {
            return SlurmTopologyConf.parse(name, text);
        } catch (TopologyFileException e) {
            String first = SourceLines.of(text, false).get(0).text();
            if (first.matches("(?i)(leaf|spine|core|accelerator)=.*")) { // a plain file whose first line lost its nodes
                throw new TopologyFileException(e.file(), e.line(), e.what() + " (read as Slurm's topology.conf: its first line "
                        + "starts with Key=Value; a plain topology file's lines start with their nodes, such as gpu[001-032] leaf=leaf-01)");
            }
            throw e;
        }
    }

    /** Which format {@code text} is in, by its first line that is not a comment (plain for a file of comments only). */
    public static Format format(String text) {
        return SourceLines.of(text, false).stream().findFirst()
                .map(l -> l.text().split("\\s+")[0].contains("=") ? Format.SLURM : Format.PLAIN).orElse(Format.PLAIN);
    }

    private static String text(Path file, String name) {
        if (Files.isDirectory(file)) {
            throw new TopologyFileException(name, 0, "is a folder, not a file: name the topology file");
        }
        byte[] bytes;
        try (InputStream in = Files.newInputStream(file)) {
            bytes = in.readNBytes(MAX_BYTES + 1);
        } catch (NoSuchFileException e) {
            throw new TopologyFileException(name, 0, "does not exist: check topology.file in the configuration");
        } catch (IOException e) {
            throw new TopologyFileException(name, 0, "cannot be read (" + e.getMessage() + "): make it readable by the user running "
                    + "fabricd");
        }
        if (bytes.length > MAX_BYTES) {
            throw new TopologyFileException(name, 0, "is larger than " + (MAX_BYTES >> 20) + " MiB: not a topology file");
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new TopologyFileException(name, 0, "is not text (UTF-8): not a topology file");
        }
    }
}
