package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Runs a shell script in the Soft-RoCE VM (testbed/softroce-vm.sh) and returns everything it printed.
 * A run takes minutes under TCG: its stages (the harness' {@code [host]}/{@code [stage2]} lines and
 * its {@code [guest +Ns] NAME} line for each {@code =====NAME=====} marker the script prints) are
 * echoed to the test log as they happen.
 *
 * <p>A guest process that crashed (a JVM's fatal error report, a process killed by SIGABRT, SIGILL,
 * SIGSEGV, ...; {@link GuestCrash}) fails the run with a line naming the crash and its file, whatever
 * the guest's exit status: a crash in a background agent otherwise surfaces as a missing section or a
 * timeout. A run past its time is ended (qemu and the harness) and fails with the output so far.
 */
final class SoftRoceVm {
    /**
     * Guest shell lines: a network namespace {@code peer} behind a veth pair, the guest's end
     * {@code pa} at 10.9.0.1, the namespace's {@code pb} at 10.9.0.2 (with its loopback up). Both rxe
     * devices stay in the guest's own namespace: verbs traffic between them never crosses the pair.
     */
    static final String PEER_NAMESPACE = String.join("\n",
            "ip netns add peer",
            "ip link add pa type veth peer name pb",
            "ip link set pb netns peer",
            "ip addr add 10.9.0.1/24 dev pa && ip link set pa up",
            "ip netns exec peer ip addr add 10.9.0.2/24 dev pb",
            "ip netns exec peer ip link set pb up && ip netns exec peer ip link set lo up");
    /** Guest shell line: the probe key the guest's agents and commands share, at /tmp/pk (mode 600). */
    static final String PROBE_KEY = "(umask 077 && echo probe-key-for-the-vm-test-0123456789 > /tmp/pk)";

    private SoftRoceVm() {
    }

    /**
     * @param timeoutSeconds the VM's own limit (TIMEOUT); every fabricd start in the guest costs ~20 s under TCG
     */
    static String run(Path repo, String script, int timeoutSeconds) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("bash", repo.resolve("testbed/softroce-vm.sh").toString(), script)
                .redirectErrorStream(true);
        pb.environment().put("TIMEOUT", Integer.toString(timeoutSeconds));
        Process p = pb.start();
        StringBuilder buf = new StringBuilder();
        long t0 = System.nanoTime();
        Thread pump = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    synchronized (buf) {
                        buf.append(line).append('\n');
                    }
                    if (line.startsWith("[host]") || line.startsWith("[stage2") || line.startsWith("[guest +")) {
                        System.out.printf("[vm +%ds] %s%n", TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0), line);
                    }
                }
            } catch (IOException e) {
                // process ended
            }
        });
        pump.start();
        long limit = timeoutSeconds + 60L;
        boolean finished = p.waitFor(limit, TimeUnit.SECONDS);
        if (!finished) {
            // the harness and its qemu, which the harness' own timeout failed to end
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
        }
        pump.join(TimeUnit.SECONDS.toMillis(30));
        String out;
        synchronized (buf) {
            out = buf.toString();
        }
        String crash = GuestCrash.describe(out);
        if (crash != null) {
            throw new AssertionError(crash + "\n--- guest output:\n" + out);
        }
        if (!finished) {
            throw new AssertionError("the VM ran past " + limit + " s and was killed; output so far:\n" + out);
        }
        if (p.exitValue() == 124) {
            throw new AssertionError("the guest command ran past the VM's TIMEOUT of " + timeoutSeconds + " s; output:\n" + out);
        }
        assertThat(p.exitValue()).as("guest exit status; output:\n" + out).isZero();
        return out;
    }

    /** The text between two marker lines. */
    static String section(String out, String start, String end) {
        int a = out.indexOf(start);
        int b = out.indexOf(end, a + 1);
        assertThat(a).as("marker " + start + " in:\n" + out).isGreaterThanOrEqualTo(0);
        assertThat(b).as("marker " + end + " in:\n" + out).isGreaterThan(a);
        return out.substring(a + start.length(), b);
    }
}
