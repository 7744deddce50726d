package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Runs a shell script in the Soft-RoCE VM (testbed/softroce-vm.sh) and returns everything it printed. */
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
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        Thread pump = new Thread(() -> {
            try {
                p.getInputStream().transferTo(buf);
            } catch (java.io.IOException e) {
                // process ended
            }
        });
        pump.start();
        assertThat(p.waitFor(timeoutSeconds + 60L, TimeUnit.SECONDS)).as("VM finished in time").isTrue();
        pump.join();
        String out = buf.toString(StandardCharsets.UTF_8);
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
