package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The Soft-RoCE VM harness names a guest crash instead of timing out or passing over it: an agent
 * that dies of a fatal signal in the background leaves its JVM fatal error report in the run's out
 * folder, a foreground command killed by SIGABRT a line in crashes.log, and {@link SoftRoceVm#run}
 * fails with a line naming the first of them and its file, although the guest script exits 0.
 */
class GuestCrashVmIT {

    @Test
    void aCrashedGuestJvmFailsTheRunWithItsReport() {
        Requirements.program("qemu-system-x86_64", "bash testbed/softroce-vm.sh --setup installs the test bed");
        Path repo = Requirements.repoRoot();
        String guest = String.join("\n",
                "cd " + repo,
                "bin/fabricd run --listen 127.0.0.1:9530 > /tmp/agent.log 2>&1 & A=$!",
                "ready() { timeout 10 bash -c 'exec 3<>/dev/tcp/127.0.0.1/9530 && printf \"GET /readyz HTTP/1.0\\r\\n\\r\\n\" >&3"
                        + " && head -1 <&3' 2>/dev/null | grep -q 200; }",
                "for i in $(seq 300); do ready && break; sleep 1; done",
                "echo \"agent ready after ${i}s\"",
                // a fatal signal as a bad instruction would raise it: the JVM's handler writes its report and the JVM exits
                "kill -SEGV $A; wait $A; echo \"agent-exit=$?\"",
                // a process that aborts, as glibc does on a corrupted heap
                "sh -c 'kill -ABRT $$'",
                "exit 0");
        assertThatThrownBy(() -> SoftRoceVm.run(repo, guest, 600)).isInstanceOf(AssertionError.class)
                .satisfies(e -> {
                    String first = e.getMessage().lines().findFirst().orElseThrow();
                    assertThat(first).as(e.getMessage()).startsWith("guest crash: JVM fatal error SIGSEGV (0xb) at pc=")
                            .containsPattern("/out/hs_err_pid\\d+\\.log\\) \\(\\+1 more\\)$");
                    assertThat(e.getMessage()).contains("# A fatal error has been detected by the Java Runtime Environment")
                            .containsPattern("(?m)^[0-9.]+s: (/usr)?/bin/dash \\(pid \\d+, thread \"sh\"\\) killed by SIGABRT$");
                });
    }
}
