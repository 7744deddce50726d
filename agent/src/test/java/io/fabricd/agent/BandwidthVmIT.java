package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code fabricd bw} against an agent in the Soft-RoCE VM, over RC queue pairs on rxe1 -> rxe0, and
 * perftest's ib_write_bw on the same devices, size and duration in the same run: fabricd moves at
 * least 0.8x what perftest moves, both beside an agent that does not collect meanwhile. Then, with a
 * second agent that collects as usual, the cases around a test: a wrong key, a second test while one
 * runs, the results and the finding in the agent's output, and an agent that dies in the middle of a
 * test.
 */
class BandwidthVmIT {

    @Test
    void writesAsFastAsPerftestAndFailsCleanly() throws Exception {
        Requirements.program("qemu-system-x86_64", "bash testbed/softroce-vm.sh --setup installs the test bed");
        Path repo = Requirements.repoRoot();
        String bw = "bin/fabricd bw 127.0.0.1:9530 --device rxe1 --gid-index 1 --peer-device rxe0 --size 65536";
        String guest = String.join("\n",
                "cd " + repo,
                SoftRoceVm.PROBE_KEY,
                "(umask 077 && echo another-key-0123456789abcdef > /tmp/wk)",
                // GID index 1 (the IPv4 RoCE v2 GID): both rxe live in one netns, as the test bed's perftest runs.
                // The agent that serves the measured runs collects once, at its start: a collection takes one of
                // the VM's two emulated CPUs for about 0.3 s (9 s the first, cold one), which the runs are kept clear of
                "printf 'collection:\\n  interval: 1h\\nprobe:\\n  key_file: /tmp/pk\\n  gid_index: 1\\nbandwidth:\\n  min_interval: 0s\\n'"
                        + " > /tmp/quiet.yaml",
                // the second agent, for the cases around a test, collects every 5 s: its findings follow its results
                "printf 'collection:\\n  interval: 5s\\nprobe:\\n  key_file: /tmp/pk\\n  gid_index: 1\\nbandwidth:\\n  min_interval: 0s\\n'"
                        + " > /tmp/agent.yaml",
                // the agent runs first: perftest and fabricd are measured beside the same idle agent
                "bin/fabricd run --config /tmp/quiet.yaml --listen 0.0.0.0:9530 > /tmp/quiet.log 2>&1 & A=$!",
                "get() { timeout 10 bash -c \"exec 3<>/dev/tcp/127.0.0.1/9530 && printf 'GET $1 HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3\"; }",
                "ready() { for i in $(seq 1 240); do get /readyz 2>/dev/null | head -1 | grep -q 200 && return; sleep 0.5; done; }",
                "ready",
                // five runs each, alternating, median against median: the emulator's pace moves one run of the
                // same tool by up to ±30 % against the next (0.14 and 0.20 Gb/s seen for ib_write_bw), and a
                // median is not carried by one fast run of either tool as the best of each is
                "perf() { (timeout 60 ib_write_bw -d rxe0 -x 1 -D 5 -s 65536 --report_gbits -F > /dev/null 2>&1 &); sleep 2;"
                        + " timeout 60 ib_write_bw -d rxe1 -x 1 -D 5 -s 65536 --report_gbits -F 127.0.0.1 2>&1 | grep -A1 '#bytes' || true; sleep 1; }",
                "for n in 1 2 3 4 5; do echo \"=====PERFTEST$n=====\"; perf; echo \"=====BW$n=====\";"
                        + " " + bw + " --key-file /tmp/pk --duration 5s --format json; echo bw-exit=$?; done",
                "echo '=====SEND====='",
                // both sides' reports: the sender's average sometimes comes out 0.000000 in duration mode
                "(timeout 60 ib_send_bw -d rxe0 -x 1 -D 5 -s 65536 --report_gbits -F > /tmp/send-server.log 2>&1 &)",
                "sleep 2",
                "timeout 60 ib_send_bw -d rxe1 -x 1 -D 5 -s 65536 --report_gbits -F 127.0.0.1 2>&1 | grep -A1 '#bytes' || true",
                "sleep 1",
                "grep -A1 '#bytes' /tmp/send-server.log || true",
                bw + " --key-file /tmp/pk --duration 5s --send --format json; echo bw-exit=$?",
                "echo '=====BIDI====='",
                bw + " --key-file /tmp/pk --duration 3s --bidirectional --format json; echo bw-exit=$?",
                "kill $A; wait $A",
                "bin/fabricd run --config /tmp/agent.yaml --listen 0.0.0.0:9530 > /tmp/agent.log 2>&1 & A=$!",
                "ready",
                "echo '=====WRONGKEY====='",
                bw + " --key-file /tmp/wk --duration 1s 2>&1; echo bw-exit=$?",
                "echo '=====BUSY====='",
                "served() { grep -c 'bandwidth test from' /tmp/agent.log; }",
                // two tests asked at once: each CLI takes 10-30 s to start under the emulator (a collection of its
                // own first), so one started after the other's test began may ask only once that test is over
                "n=$(served)",
                "busy() { " + bw + " --key-file /tmp/pk --duration 30s > /tmp/b$1.out 2>&1; echo bw-exit=$? >> /tmp/b$1.out; }",
                "busy 1 & B1=$!; busy 2 & B2=$!; wait $B1 $B2",
                "cat /tmp/b1.out /tmp/b2.out",
                "echo \"busy-served=$(( $(served) - n ))\"",
                "echo '=====METRICS====='",
                "get /metrics | grep -E '^fabric_(bandwidth|agent_collection_seconds)'",
                // findings are merged at each collection (every 5 s here)
                "for i in $(seq 1 30); do get /api/v1/findings | grep -q bandwidth_low && break; sleep 1; done",
                "get /api/v1/findings | grep -o '\"check\" *: *\"bandwidth_low\"' | head -1",
                "echo '=====VANISH====='",
                "n=$(served)",
                "(" + bw + " --key-file /tmp/pk --duration 30s 2> /tmp/v.err; echo vanish-exit=$? >> /tmp/v.err) & V=$!",
                // the agent logs each test it starts: killed once this one is under way
                "for i in $(seq 1 240); do [ \"$(served)\" -gt \"$n\" ] && break; sleep 0.5; done",
                "sleep 3",
                "kill -9 $A; K=$(date +%s)",
                "wait $V",
                "echo \"vanish-seconds=$(( $(date +%s) - K ))\"",
                "cat /tmp/v.err",
                "echo '=====END====='",
                "tail -n 5 /tmp/quiet.log; tail -n 5 /tmp/agent.log");
        String out = SoftRoceVm.run(repo, guest, 900);

        // perftest's average against fabricd's, the same devices, size and duration, the median of five runs each
        ObjectMapper json = new ObjectMapper();
        List<Double> perfRuns = new ArrayList<>();
        List<Double> ourRuns = new ArrayList<>();
        JsonNode r = null;
        for (int n = 1; n <= 5; n++) {
            Matcher perf = Pattern.compile("(?m)^\\s*65536\\s+\\d+\\s+[0-9.]+\\s+([0-9.]+)")
                    .matcher(SoftRoceVm.section(out, "=====PERFTEST" + n + "=====", "=====BW" + n + "====="));
            assertThat(perf.find()).as("ib_write_bw's result in:\n" + out).isTrue();
            perfRuns.add(Double.parseDouble(perf.group(1)) * 1e9);
            String bwOut = SoftRoceVm.section(out, "=====BW" + n + "=====", n < 5 ? "=====PERFTEST" + (n + 1) + "=====" : "=====SEND=====");
            assertThat(bwOut).as(out).contains("bw-exit=0");
            r = json.readTree(bwOut.substring(bwOut.indexOf('{'), bwOut.lastIndexOf('}') + 1)).get("results").get(0);
            ourRuns.add(r.get("bits_per_second").asDouble());
        }
        double perftest = median(perfRuns);
        double ours = median(ourRuns);
        System.out.printf("RDMA WRITE 64 KiB, rxe1 -> rxe0, median of five: fabricd bw %.3f Gb/s %s, ib_write_bw %.3f Gb/s %s: %.2fx;"
                + " ceiling %s (%s)%n", ours / 1e9, gbits(ourRuns), perftest / 1e9, gbits(perfRuns), ours / perftest,
                r.get("ceiling_bits_per_second"), r.get("limit").asText());
        assertThat(ours).as(out).isGreaterThanOrEqualTo(0.8 * perftest);
        assertThat(r.get("device").asText()).isEqualTo("rxe1");
        assertThat(r.get("peer_device").asText()).isEqualTo("rxe0");
        assertThat(r.get("messages").asLong() * 65536).isEqualTo(r.get("bytes").asLong());
        // rxe0 sits on veth0: the ceiling is the link's, no PCIe function to limit it
        assertThat(r.get("limit").asText()).isEqualTo("link");

        // SEND into the agent's posted receives, against ib_send_bw on the same devices
        String sendOut = SoftRoceVm.section(out, "=====SEND=====", "=====BIDI=====");
        Matcher sendPerf = Pattern.compile("(?m)^\\s*65536\\s+\\d+\\s+[0-9.]+\\s+([0-9.]+)").matcher(sendOut);
        double sendPerftest = 0;
        while (sendPerf.find()) {
            sendPerftest = Math.max(sendPerftest, Double.parseDouble(sendPerf.group(1)) * 1e9);
        }
        assertThat(sendPerftest).as("ib_send_bw's result (sender's or receiver's) in:\n" + out).isPositive();
        assertThat(sendOut).as(out).contains("bw-exit=0");
        JsonNode sr = json.readTree(sendOut.substring(sendOut.indexOf('{'), sendOut.lastIndexOf('}') + 1)).get("results").get(0);
        System.out.printf("SEND 64 KiB, rxe1 -> rxe0: fabricd bw --send %.3f Gb/s, ib_send_bw %.3f Gb/s: %.2fx%n",
                sr.get("bits_per_second").asDouble() / 1e9, sendPerftest / 1e9, sr.get("bits_per_second").asDouble() / sendPerftest);
        // one run each: a bound that catches a receiver that cannot keep up (a pause in its loop gave 0.69x), not the
        // 0.8x of the writes above (0.83-0.95x seen)
        assertThat(sr.get("bits_per_second").asDouble()).as(out).isGreaterThanOrEqualTo(0.6 * sendPerftest);

        // both ways at once: a result per direction, each moving data
        String bidi = SoftRoceVm.section(out, "=====BIDI=====", "=====WRONGKEY=====");
        assertThat(bidi).as(out).contains("bw-exit=0");
        JsonNode both = json.readTree(bidi.substring(bidi.indexOf('{'), bidi.lastIndexOf('}') + 1)).get("results");
        assertThat(both.findValuesAsText("direction")).containsExactly("tx", "rx");
        for (JsonNode d : both) {
            assertThat(d.get("bits_per_second").asDouble()).as(bidi).isGreaterThan(0.05 * ours);
        }
        System.out.printf("both ways: tx %.3f Gb/s, rx %.3f Gb/s%n", both.get(0).get("bits_per_second").asDouble() / 1e9,
                both.get(1).get("bits_per_second").asDouble() / 1e9);

        String wrong = SoftRoceVm.section(out, "=====WRONGKEY=====", "=====BUSY=====");
        assertThat(wrong).as(out).contains("bw-exit=2").contains("refused the probe key (401)").doesNotContain("Exception");

        String busy = SoftRoceVm.section(out, "=====BUSY=====", "=====METRICS=====");
        // one served, the other refused while it ran
        assertThat(busy).as(out).contains("busy-served=1").contains("answered 409").contains("one at a time").doesNotContain("Exception");
        assertThat(Pattern.compile("bw-exit=0").matcher(busy).results().count()).as(busy).isEqualTo(1);
        assertThat(Pattern.compile("bw-exit=2").matcher(busy).results().count()).as(busy).isEqualTo(1);

        String metrics = SoftRoceVm.section(out, "=====METRICS=====", "=====VANISH=====");
        assertThat(metrics).as(out).containsPattern("fabric_bandwidth_bytes_per_second\\{device=\"rxe0\",direction=\"rx\",peer=\"[^\"]+\"\\} [0-9.E]+")
                .contains("fabric_bandwidth_ratio{").contains("fabric_bandwidth_ceiling_bytes_per_second{")
                // rxe under the emulator moves a few percent of veth's 10 Gb/s: a link far below its ceiling
                .contains("bandwidth_low");

        // what one collection costs in the emulator: the reason the measured runs are beside an agent that does not collect
        Matcher sum = Pattern.compile("(?m)^fabric_agent_collection_seconds_sum ([0-9.E]+)").matcher(metrics);
        Matcher count = Pattern.compile("(?m)^fabric_agent_collection_seconds_count ([0-9.E]+)").matcher(metrics);
        Matcher max = Pattern.compile("(?m)^fabric_agent_collection_seconds_max ([0-9.E]+)").matcher(metrics);
        if (sum.find() && count.find() && max.find()) {
            System.out.printf("agent collection in the VM: %.0f collections, mean %.2f s, max %.2f s%n", Double.parseDouble(count.group(1)),
                    Double.parseDouble(sum.group(1)) / Double.parseDouble(count.group(1)), Double.parseDouble(max.group(1)));
        }

        String vanish = SoftRoceVm.section(out, "=====VANISH=====", "=====END=====");
        Matcher secs = Pattern.compile("vanish-seconds=(\\d+)").matcher(vanish);
        assertThat(secs.find()).as(out).isTrue();
        System.out.println("agent killed mid-test: fabricd bw ended " + secs.group(1) + " s later");
        assertThat(vanish).as(out).contains("vanish-exit=2").contains("failed").doesNotContain("Exception");
        // it ends when the writes stop completing, not at the end of its 30 s
        assertThat(Integer.parseInt(secs.group(1))).as(vanish).isLessThan(20);
    }

    private static double median(List<Double> runs) {
        List<Double> sorted = new ArrayList<>(runs);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }

    private static List<String> gbits(List<Double> bps) {
        return bps.stream().map(b -> String.format("%.3f", b / 1e9)).toList();
    }
}
