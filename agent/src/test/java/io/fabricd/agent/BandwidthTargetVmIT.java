package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Where a bandwidth test's bulk may go, in the Soft-RoCE VM: a key holder asks an agent for a
 * bidirectional test whose queue pair address names a GID without such a queue pair (rxe1's, QP
 * 0x7abcd: a third party's RoCE address), and the agent sends it nothing but a first write of one
 * byte and its retransmissions for 3 s, one packet each (some 90 at rxe's timer), counted at rxe0.
 * Before, the agent wrote back its bulk to whatever address the request named: 64 KiB writes, 128
 * in flight, rxe sending 128 packets unacknowledged at each retransmission, some 12 000 packets in
 * the same 3 s. A genuine test both ways still moves data.
 */
class BandwidthTargetVmIT {
    @Test
    void theBulkGoesOnlyToQueuePairsThatAcknowledgedAFirstWrite() throws Exception {
        Requirements.program("qemu-system-x86_64", "bash testbed/softroce-vm.sh --setup installs the test bed");
        Path repo = Requirements.repoRoot();
        String guest = String.join("\n",
                "cd " + repo,
                SoftRoceVm.PROBE_KEY,
                "printf 'collection:\\n  interval: 1h\\nprobe:\\n  key_file: /tmp/pk\\n  gid_index: 1\\nbandwidth:\\n  min_interval: 0s\\n'"
                        + " > /tmp/agent.yaml",
                "bin/fabricd run --config /tmp/agent.yaml --listen 0.0.0.0:9530 > /tmp/agent.log 2>&1 & A=$!",
                "get() { timeout 10 bash -c \"exec 3<>/dev/tcp/127.0.0.1/9530 && printf 'GET $1 HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3\"; }",
                "for i in $(seq 1 240); do get /readyz 2>/dev/null | head -1 | grep -q 200 && break; sleep 0.5; done",
                "sent() { cat /sys/class/infiniband/rxe0/ports/1/hw_counters/sent_pkts; }",
                "echo '=====STRANGER====='",
                "b=$(sent)",
                "java -cp '" + System.getProperty("java.class.path") + "' " + StrangerBandwidthStart.class.getName()
                        + " 127.0.0.1:9530 /tmp/pk \"$(cat /sys/class/infiniband/rxe1/ports/1/gids/1)\" 2>&1 | tail -3",
                "echo \"stranger-packets=$(( $(sent) - b ))\"",
                "grep 'bandwidth test with stranger' /tmp/agent.log | tail -2",
                "echo '=====GENUINE====='",
                "bin/fabricd bw 127.0.0.1:9530 --key-file /tmp/pk --device rxe1 --gid-index 1 --peer-device rxe0 --size 65536"
                        + " --duration 2s --bidirectional --format json; echo bw-exit=$?",
                "echo '=====END====='",
                "kill $A; wait $A; tail -n 5 /tmp/agent.log");
        String out = SoftRoceVm.run(repo, guest, 900);

        String stranger = SoftRoceVm.section(out, "=====STRANGER=====", "=====GENUINE=====");
        Matcher packets = Pattern.compile("stranger-packets=(\\d+)").matcher(stranger);
        assertThat(packets.find()).as(out).isTrue();
        System.out.println("a bidirectional test written back to a GID without the queue pair: " + packets.group(1)
                + " packets left rxe0\n" + stranger);
        assertThat(stranger).as(out).contains("stranger-done bytes=0").contains("first write");
        assertThat(Long.parseLong(packets.group(1))).as(stranger).isLessThan(1_000);

        String genuine = SoftRoceVm.section(out, "=====GENUINE=====", "=====END=====");
        assertThat(genuine).as(out).contains("bw-exit=0")
                .containsPattern("\"direction\"\\s*:\\s*\"tx\"").containsPattern("\"direction\"\\s*:\\s*\"rx\"");
    }
}
