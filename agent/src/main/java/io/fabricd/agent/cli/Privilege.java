package io.fabricd.agent.cli;

import io.fabricd.natives.ProcessIdentity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What a "permission denied" on a file of the agent's means for this process: a command run as
 * another user than root (the state folder is the agent's: root's, or its service user's, mode
 * 0700), or root without the capabilities that read or write other users' files: the file-system
 * user id and the effective capabilities of {@link ProcessIdentity}.
 */
final class Privilege {

    /** Whose files this process reads and writes as, and whether it may read or write anyone's. */
    record Reader(long fsUid, boolean readsAnyFile, boolean writesAnyFile) {
    }

    /** What the command was refused on the agent's state folder. */
    enum Access { READ, WRITE }

    private Privilege() {
    }

    /**
     * What to do when {@code command} was refused {@code access} to a file of the agent's state
     * folder: one sentence, for the end of the message; null when nothing this process could change
     * would help (or it cannot be known).
     */
    static String advice(String command, Access access) {
        return advice(command, access, reader(Path.of("/proc/self/status")));
    }

    static String advice(String command, Access access, Reader r) {
        if (r == null || (access == Access.READ ? r.readsAnyFile() : r.writesAnyFile())) {
            return null;
        }
        if (r.fsUid() != 0) {
            return "this process runs as uid " + r.fsUid() + ", not root: run " + command + " as root (sudo)"
                    + (access == Access.READ ? ", or with CAP_DAC_READ_SEARCH, to read" : " to write") + " the agent's state folder";
        }
        return access == Access.READ
                ? "this process runs as root without CAP_DAC_READ_SEARCH or CAP_DAC_OVERRIDE (a container or a unit that drops "
                        + "capabilities): give it CAP_DAC_READ_SEARCH"
                : "this process runs as root without CAP_DAC_OVERRIDE (a container or a unit that drops capabilities): give it "
                        + "CAP_DAC_OVERRIDE";
    }

    /** The file-system user id and capabilities of a /proc/PID/status; null when it cannot be read or says neither. */
    static Reader reader(Path status) {
        try {
            ProcessIdentity id = ProcessIdentity.parse(Files.readAllLines(status));
            if (id.capabilities() == null) {
                return null;
            }
            boolean override = id.has(ProcessIdentity.CAP_DAC_OVERRIDE);
            return new Reader(id.fsUid(), override || id.has(ProcessIdentity.CAP_DAC_READ_SEARCH), override);
        } catch (IOException | IllegalArgumentException e) {
            return null;
        }
    }
}
