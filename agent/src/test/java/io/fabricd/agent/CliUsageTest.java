package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabricd.agent.cli.ExecutionErrors;
import io.fabricd.testing.PrivateFiles;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The command line's own messages, through {@link Main#execute}: a missing command lists every
 * command, a usage error is one line and a hint, enum values in any case, a peer whose name does not
 * resolve and a host without RDMA said as such, an internal error as an error, not a verdict.
 */
class CliUsageTest {
    private static final String KEY = "a-test-key-of-more-than-16-bytes";

    /** An error and the hint, nothing of the usage text, no stack trace. */
    private static void usageError(CliTest.Result r, String command, String says) {
        assertThat(r.code()).as(r.err()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).startsWith(command + ": ").contains(says)
                .contains("Try '" + command + " --help' for more information.")
                .doesNotContain("Usage:", "Show this help message", "\tat ", "Exception");
    }

    @Test
    void noCommandListsEveryRegisteredCommand() {
        CliTest.Result r = CliTest.run();
        usageError(r, "fabricd", "a command is required: ");
        List<String> registered = List.copyOf(new CommandLine(new Main()).getSubcommands().keySet());
        assertThat(registered).contains("run", "metrics", "snapshot", "diagnose", "inventory", "probe", "bw");
        assertThat(r.err()).contains("a command is required: " + String.join(", ", registered) + "\n");
        assertThat(r.err().lines()).hasSize(2);

        CliTest.Result inv = CliTest.run("inventory");
        usageError(inv, "fabricd inventory", "a command is required: accept, show");
    }

    @Test
    void aUsageErrorIsOneLineAndAHint() {
        CliTest.Result unknown = CliTest.run("metrics", "--bogus");
        usageError(unknown, "fabricd metrics", "Unknown option: '--bogus'");
        assertThat(unknown.err().lines()).hasSize(2);

        CliTest.Result typo = CliTest.run("metrics", "--rot", "/tmp");
        usageError(typo, "fabricd metrics", "Unknown options: '--rot', '/tmp'");
        assertThat(typo.err()).contains("Possible solutions: --root");

        CliTest.Result bad = CliTest.run("diagnose", "--format", "yaml");
        usageError(bad, "fabricd diagnose", "Invalid value for option '--format': expected one of [text, json]");
        assertThat(bad.err().lines()).hasSize(2);

        usageError(CliTest.run("probe", "--count", "many", "h:1"), "fabricd probe", "'many' is not an int");
        usageError(CliTest.run("inventory", "show", "--format", "xml"), "fabricd inventory show", "'--format'");
        // --help still prints the usage, to stdout, exit 0
        CliTest.Result help = CliTest.run("metrics", "--help");
        assertThat(help.code()).isZero();
        assertThat(help.out()).contains("Usage: fabricd metrics");
    }

    /** A command that fails as no input makes it: what a bug does to any command. */
    @CommandLine.Command(name = "broken")
    static final class Broken implements Runnable {
        @Override
        public void run() {
            throw new IllegalStateException("a bug");
        }
    }

    /** A command that fails with an internal error exits 2, "could not run", never 1, diagnose's finding or preflight's exclusion. */
    @Test
    void anInternalErrorIsNotAVerdict() {
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new Broken()).setErr(new PrintWriter(err)).setExecutionExceptionHandler(new ExecutionErrors());
        assertThat(cl.execute()).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("fabricd: internal error: java.lang.IllegalStateException: a bug\n"
                + "(set FABRICD_DEBUG=1 for the stack trace)\n");

        // the help's list of exit codes says so (its lines wrapped at 80 columns)
        String help = CliTest.run("--help").out().replaceAll("\\s+", " ");
        assertThat(help).contains(" Exit codes: 0 success 1 diagnose found a finding at or above --fail-on; preflight excluded a node or "
                + "found a link bad 2 bad usage or unusable input, the command could not run (an internal error too), or its output was not "
                + "written whole");
    }

    @Test
    void enumValuesInAnyCase() {
        CliTest.Result r = CliTest.run("diagnose", "--demo", "--format", "JSON", "--fail-on", "Never");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("{").contains("\"findings\"");
        assertThat(CliTest.run("diagnose", "--demo", "--fail-on", "CRITICAL").code()).isEqualTo(1); // the demo's planted criticals
    }

    @Test
    void aPeerWhoseNameDoesNotResolveIsSaidSo(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), KEY + "\n");
        for (String cmd : new String[] {"probe", "bw"}) {
            CliTest.Result r = CliTest.run(cmd, "--key-file", key.toString(), "no-such-host.invalid:9530");
            assertThat(r.code()).as(cmd + ": " + r.err()).isEqualTo(2);
            assertThat(r.err()).as(cmd).startsWith("fabricd: ")
                    .contains("cannot resolve host no-such-host.invalid")
                    .doesNotContain("connection refused", "Exception", "\tat ");
        }
        // every bad PEER at once, and one without a port said as such
        CliTest.Result two = CliTest.run("probe", "--key-file", key.toString(), "127.0.0.1:1", "a.invalid:1", "10.0.0.2");
        assertThat(two.code()).isEqualTo(2);
        assertThat(two.err()).contains("cannot resolve host a.invalid", "PEER '10.0.0.2' is not HOST:PORT");
    }

    @Test
    void bwAndVerbsProbesOnAHostWithoutRdmaSaySo(@TempDir Path tmp) throws Exception {
        assumeTrue(noRdmaDevice(), "this host has an RDMA device");
        Path key = PrivateFiles.write(tmp.resolve("key"), KEY + "\n");
        CliTest.Result bw = CliTest.run("bw", "--key-file", key.toString(), "127.0.0.1:9530");
        assertThat(bw.code()).as(bw.err()).isEqualTo(2);
        assertThat(bw.err()).startsWith("fabricd: no RDMA device on this host: /sys/class/infiniband is")
                .contains("fabricd probe PEER").doesNotContain("Exception", "\tat ");
        assertThat(bw.err().lines()).hasSize(1);
        for (String[] args : new String[][] {{"--device", "mlx5_0"}, {}}) {
            String[] cmd = Stream.concat(Stream.of("probe", "--key-file", key.toString(), "--transport", "VERBS"), Stream.of(args))
                    .toArray(String[]::new);
            CliTest.Result verbs = CliTest.run(Stream.concat(Stream.of(cmd), Stream.of("127.0.0.1:9530")).toArray(String[]::new));
            assertThat(verbs.code()).as(verbs.err()).isEqualTo(2);
            assertThat(verbs.err()).startsWith("fabricd: no RDMA device on this host: ").contains("use --transport udp")
                    .doesNotContain("no such RDMA port", "Exception");
        }
    }

    /** What the commands look at: no entry in /sys/class/infiniband. */
    private static boolean noRdmaDevice() {
        try (Stream<Path> s = Files.list(Path.of("/sys/class/infiniband"))) {
            return s.findAny().isEmpty();
        } catch (Exception e) {
            return true;
        }
    }
}
