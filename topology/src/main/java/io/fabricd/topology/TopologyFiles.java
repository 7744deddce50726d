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
    /**
     * The largest file read: a plain file of {@link #MAX_NODES} nodes, one line each, is about 5 MiB;
     * a topology.conf with hostlists far less. Larger is not a topology file, and would cost the
     * agent's small heap more than it has.
     */
    public static final int MAX_BYTES = 8 << 20;

    /** The most nodes a file may name: a fabric larger than this is given to fabricd in parts. */
    public static final int MAX_NODES = 65_536;

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
        return read(file, "topology.file in the configuration");
    }

    /**
     * The topology the file describes, {@code option} (such as "--topology") named as where the file
     * was given when it does not exist.
     */
    public static Topology read(Path file, String option) {
        String name = file.toString();
        return parse(name, text(file, name, option));
    }

    /** The topology {@code text} describes, {@code name} in its messages; a file that names no node is refused. */
    public static Topology parse(String name, String text) {
        Topology t = parseAny(name, text);
        if (t.placements().isEmpty()) {
            throw new TopologyFileException(name, 0, "names no node: a topology file says where nodes sit; give it lines such as "
                    + "gpu[001-032] leaf=leaf-01 (or SwitchName=leaf-01 Nodes=gpu[001-032]), or leave it out");
        }
        return t;
    }

    /** A file naming more than {@link #MAX_NODES} nodes, at {@code line}. */
    static TopologyFileException tooManyNodes(String name, int line) {
        return new TopologyFileException(name, line, "names more than " + MAX_NODES + " nodes: fabricd reads at most that many from "
                + "one file (a larger file costs the agent's small heap too much); give each part of the fabric its own file");
    }

    /** A hostlist's problem said for a topology file (the hostlist parser's advice is for a job's node set). */
    static String hostlistProblem(IllegalArgumentException e) {
        return e.getMessage().replace(": split the job's node set", ": a topology file names at most " + MAX_NODES + " nodes");
    }

    private static Topology parseAny(String name, String text) {
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

    private static String text(Path file, String name, String option) {
        if (Files.isDirectory(file)) {
            throw new TopologyFileException(name, 0, "is a folder, not a file: name the topology file");
        }
        if (Files.exists(file) && !Files.isRegularFile(file)) { // a FIFO would block the read forever; a symlink to a file is fine
            throw new TopologyFileException(name, 0, "is not a regular file (a pipe, socket or device): name the topology file itself");
        }
        byte[] bytes;
        try (InputStream in = Files.newInputStream(file)) {
            bytes = in.readNBytes(MAX_BYTES + 1);
        } catch (NoSuchFileException e) {
            throw new TopologyFileException(name, 0, "does not exist: check " + option);
        } catch (IOException e) {
            throw new TopologyFileException(name, 0, "cannot be read (" + e.getMessage() + "): make it readable by the user running "
                    + "fabricd");
        }
        if (bytes.length > MAX_BYTES) {
            throw new TopologyFileException(name, 0, "is larger than " + (MAX_BYTES >> 20) + " MiB: not a topology file (one of "
                    + MAX_NODES + " nodes, the most fabricd reads, is smaller); give each part of the fabric its own file");
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new TopologyFileException(name, 0, "is not text (UTF-8): not a topology file");
        }
    }
}
