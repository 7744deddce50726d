package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the Soft-RoCE VM harness says about a guest that crashed (the files as testbed/softroce-vm.sh leaves them). */
class GuestCrashTest {
    private static final String HS_ERR = String.join("\n",
            "#",
            "# A fatal error has been detected by the Java Runtime Environment:",
            "#",
            "#  SIGILL (0x4) at pc=0x00007f3c8d1a2b40, pid=812, tid=829",
            "#",
            "# JRE version: OpenJDK Runtime Environment (17.0.21+6) (build 17.0.21+6-Debian-1deb12u1)",
            "# Java VM: OpenJDK 64-Bit Server VM (17.0.21+6-Debian-1deb12u1, mixed mode, emulated-client, tiered, serial gc,"
                    + " linux-amd64)",
            "# Problematic frame:",
            "# J 1412 c1 java.util.Arrays.fill([BIIB)V java.base (28 bytes) @ 0x00007f3c8d1a2b40 [0x00007f3c8d1a2a80+0x00000000000000c0]",
            "#",
            "# No core dump will be written. Core dumps have been disabled.",
            "#",
            "",
            "---------------  S U M M A R Y ------------",
            "",
            "Command Line: -XX:+UseSerialGC -jar /work/agent/target/fabricd.jar probe",
            "");

    @Test
    void aJvmFatalErrorIsNamedWithItsFileAndHeader(@TempDir Path run) throws Exception {
        Path out = Files.createDirectories(run.resolve("out"));
        Path hsErr = Files.writeString(out.resolve("hs_err_pid812.log"), HS_ERR);
        Files.writeString(out.resolve("crashes.log"), "41.20s: /usr/bin/ib_write_bw (pid 901, thread \"ib_write_bw\") killed by SIGABRT\n");
        String msg = GuestCrash.describe("[host] run dir " + run + ", accel=tcg cpu=Nehalem, kernel 6.1.0\nwhatever\n");
        assertThat(msg.lines().findFirst().orElseThrow()).isEqualTo("guest crash: JVM fatal error SIGILL (0x4) at pc=0x00007f3c8d1a2b40"
                + " in J 1412 c1 java.util.Arrays.fill([BIIB)V java.base (28 bytes) @ 0x00007f3c8d1a2b40"
                + " [0x00007f3c8d1a2a80+0x00000000000000c0] (" + hsErr + ") (+1 more)");
        // the report's header is attached, not its summary; then the other crash
        assertThat(msg).contains("# JRE version: OpenJDK Runtime Environment (17.0.21+6)").doesNotContain("Command Line")
                .contains("/usr/bin/ib_write_bw (pid 901, thread \"ib_write_bw\") killed by SIGABRT");
    }

    @Test
    void aProcessKilledByASignalWithoutAJvmReport(@TempDir Path run) throws Exception {
        Path out = Files.createDirectories(run.resolve("out"));
        Path log = Files.writeString(out.resolve("crashes.log"),
                "88.02s: /usr/lib/jvm/java-17-openjdk-amd64/bin/java (pid 77, thread \"C1 CompilerThre\") killed by SIGABRT\n");
        String msg = GuestCrash.describe("[host] run dir " + run + ", accel=tcg cpu=Nehalem, kernel 6.1.0\n");
        assertThat(msg.lines().findFirst().orElseThrow()).isEqualTo("guest crash: /usr/lib/jvm/java-17-openjdk-amd64/bin/java (pid 77,"
                + " thread \"C1 CompilerThre\") killed by SIGABRT (" + log + ")");
    }

    @Test
    void theShellsReportInTheOutputWhenNoFileCameBack() {
        assertThat(GuestCrash.describe("=====VERBS=====\nAborted\nprobe-exit=134\n")).isEqualTo("guest crash: a guest command died:"
                + " \"Aborted\" (in the guest's output)");
        assertThat(GuestCrash.describe("sh: line 4:  1234 Illegal instruction     (core dumped) bin/fabricd probe x\n"))
                .startsWith("guest crash: a guest command died: \"sh: line 4:  1234 Illegal instruction");
        assertThat(GuestCrash.describe("x\n" + HS_ERR)).startsWith("guest crash: JVM fatal error SIGILL (0x4) at pc=0x00007f3c8d1a2b40 in J 1412 c1"
                + " java.util.Arrays.fill").contains("(in the guest's output)");
    }

    @Test
    void nothingCrashed(@TempDir Path run) throws Exception {
        Files.createDirectories(run.resolve("out"));
        assertThat(GuestCrash.describe("[host] run dir " + run + ", accel=tcg cpu=Nehalem, kernel 6.1.0\n"
                + "bw-exit=2 the test was aborted by the peer\nfabricd: probe aborted: Aborted rounds 0\n")).isNull();
    }
}
