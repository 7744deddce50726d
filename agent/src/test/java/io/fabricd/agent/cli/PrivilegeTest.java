package io.fabricd.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a refused read or write of the agent's state folder tells the user to do, from a
 * /proc/PID/status as the kernel writes it: a user is told to run the command as root, root without
 * the capabilities to give it the one that is missing, root with them nothing.
 */
class PrivilegeTest {
    /** The lines of /proc/self/status that count, of a process run as {@code uid} with effective capabilities {@code capEff}. */
    private static Path status(Path dir, int uid, String capEff) throws Exception {
        return Files.writeString(dir.resolve("status-" + uid + "-" + capEff), "Name:\tjava\nUmask:\t0022\nState:\tS (sleeping)\n"
                + "Uid:\t" + uid + "\t" + uid + "\t" + uid + "\t" + uid + "\nGid:\t" + uid + "\t" + uid + "\t" + uid + "\t" + uid + "\n"
                + "CapInh:\t0000000000000000\nCapPrm:\t" + capEff + "\nCapEff:\t" + capEff + "\nCapBnd:\t000001ffffffffff\n"
                + "CapAmb:\t0000000000000000\n");
    }

    @Test
    void aUserIsToldToRunAsRootToReadOrWrite(@TempDir Path tmp) throws Exception {
        Privilege.Reader user = Privilege.reader(status(tmp, 65534, "0000000000000000"));
        assertThat(user).isEqualTo(new Privilege.Reader(65534, false, false));
        assertThat(Privilege.advice("fabricd inventory accept", Privilege.Access.WRITE, user)).isEqualTo("this process runs as uid "
                + "65534, not root: run fabricd inventory accept as root (sudo) to write the agent's state folder");
        assertThat(Privilege.advice("fabricd diagnose", Privilege.Access.READ, user)).isEqualTo("this process runs as uid 65534, not "
                + "root: run fabricd diagnose as root (sudo), or with CAP_DAC_READ_SEARCH, to read the agent's state folder");
    }

    @Test
    void rootWithoutTheCapabilitiesIsToldWhichOneToGive(@TempDir Path tmp) throws Exception {
        // CAP_DAC_READ_SEARCH (bit 2) alone: it reads anyone's files, writes only its own
        Privilege.Reader readsOnly = Privilege.reader(status(tmp, 0, "0000000000000004"));
        assertThat(Privilege.advice("fabricd diagnose", Privilege.Access.READ, readsOnly)).isNull();
        assertThat(Privilege.advice("fabricd inventory accept", Privilege.Access.WRITE, readsOnly)).isEqualTo("this process runs as "
                + "root without CAP_DAC_OVERRIDE (a container or a unit that drops capabilities): give it CAP_DAC_OVERRIDE");
        Privilege.Reader none = Privilege.reader(status(tmp, 0, "0000000000000000"));
        assertThat(Privilege.advice("fabricd diagnose", Privilege.Access.READ, none)).startsWith("this process runs as root without "
                + "CAP_DAC_READ_SEARCH or CAP_DAC_OVERRIDE");
        // root as it usually is: nothing it could change would help, so nothing is said
        Privilege.Reader root = Privilege.reader(status(tmp, 0, "000001fffeffffff"));
        assertThat(Privilege.advice("fabricd inventory accept", Privilege.Access.WRITE, root)).isNull();
        assertThat(Privilege.reader(tmp.resolve("missing"))).isNull();
    }
}
