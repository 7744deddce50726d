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
 */
final class SoftRoceVm {
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
        assertThat(p.waitFor(timeoutSeconds + 60L, TimeUnit.SECONDS)).as("VM finished in time").isTrue();
        pump.join();
        String out;
        synchronized (buf) {
            out = buf.toString();
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
