package io.fabricd.agent;

import static io.fabricd.testing.PromText.s;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.testing.PromText;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Probes on a real kernel: in the Soft-RoCE VM (root, sch_netem) a live agent answers UDP and RDMA UD
 * probes. From a network namespace behind a veth pair, `fabricd probe` gets every UDP probe answered
 * at 64 and 1024 bytes. Over verbs, rxe1 probes the agent's rxe0 UD responder through the JNA
 * shim, 500 probes at 64 and 500 at 1024 bytes, every one answered; perftest's ib_send_lat runs
 * first, and the ratio of the RTTs is printed (docs/benchmarks.md). Then faults, injected with {@code tc netem}
 * into both transports: a 1 ms delay is in every RTT, 1 % loss over 10 000 probes reads as 1 %
 * within 0.3 points, and duplicated and reordered answers are counted, never taken as loss.
 */
class ProbeVmIT {
    static final int LOSS_PROBES = 10_000;
    static final int VERBS_PROBES = 500;

    @Test
    void udpProbesAcrossANamespaceWithNetem() throws Exception {
        Requirements.program("qemu-system-x86_64", "bash testbed/softroce-vm.sh --setup installs the test bed");
        Requirements.program("tc", "apt-get install iproute2");
        Path repo = Requirements.repoRoot();
        // One agent, live, in the root namespace: UDP responder on every address, verbs (UD) responders on
        // rxe0 and rxe1. UDP probes come from a network namespace behind a veth pair (pa | pb) with netem on
        // the namespace's side; verbs probes go from rxe1 to the agent's rxe0.
        String guest = String.join("\n",
                "cd " + repo,
                "set -e",
                "modprobe sch_netem",
                SoftRoceVm.PEER_NAMESPACE,
                SoftRoceVm.PROBE_KEY,
                // GID index 1 (the IPv4 RoCE v2 GID), as the test bed's perftest runs: both rxe live in one netns
                "printf 'probe:\\n  key_file: /tmp/pk\\n  gid_index: 1\\n' > /tmp/agent.yaml",
                "echo '=====PERFTEST====='",
                "(timeout 60 ib_send_lat -d rxe0 -x 1 -n 1000 -F > /dev/null 2>&1 &)",
                "sleep 2",
                "timeout 60 ib_send_lat -d rxe1 -x 1 -n 1000 -F 127.0.0.1 2>&1 | grep -A1 '#bytes' || true",
                "sleep 1",
                "bin/fabricd run --config /tmp/agent.yaml --listen 0.0.0.0:9530 > /tmp/agent.log 2>&1 &",
                // ready = /readyz answers 200 (bash's /dev/tcp: the test bed may have no curl)
                "ready() { timeout 10 bash -c 'exec 3<>/dev/tcp/127.0.0.1/9530 && printf \"GET /readyz HTTP/1.0\\r\\n\\r\\n\" >&3"
                        + " && head -1 <&3' 2>/dev/null | grep -q 200; }",
                // a second agent, in the namespace, whose rounds probe the first over UDP and verbs
                "printf 'probe:\\n  key_file: /tmp/pk\\n  gid_index: 1\\n  node_name: vm-peer\\n  peers: [\"10.9.0.1:9530\"]\\n"
                        + "  interval: 3s\\n  count: 20\\n' > /tmp/agent2.yaml",
                "ip netns exec peer bin/fabricd run --config /tmp/agent2.yaml --listen 10.9.0.2:9530 > /tmp/agent2.log 2>&1 & A2=$!",
                "set +e",
                "for i in $(seq 300); do ready && break; sleep 1; done",
                "echo \"agent ready after ${i}s\"; tail -3 /tmp/agent.log",
                "echo '=====CLEAN====='",
                "ip netns exec peer bin/fabricd probe 10.9.0.1:9530 --key-file /tmp/pk --count 200 --size 64 --size 1024 --format json;"
                        + " echo \"probe-exit=$?\"",
                "echo '=====VERBS====='",
                // 500 of each size, as in the run that once lost 475 of them at 1024 bytes under `-cpu max` (docs/testing.md)
                "bin/fabricd probe 10.0.0.1:9530 --transport verbs --device rxe1 --gid-index 1 --key-file /tmp/pk --count " + VERBS_PROBES
                        + " --format json;"
                        + " echo \"probe-exit=$?\"",
                "echo '=====ROUNDS====='",
                "m2() { ip netns exec peer timeout 10 bash -c 'exec 3<>/dev/tcp/10.9.0.2/9530 && printf \"GET /metrics HTTP/1.0\\r\\n\\r\\n\" >&3"
                        + " && cat <&3' 2>/dev/null; }",
                "for i in $(seq 100); do m2 | grep -qE '^fabric_probe_sent_total\\{.*transport=\"verbs\".*\\} ([4-9][0-9]|[0-9]{3,})' && break; sleep 3; done",
                "m2 | grep -E '^fabric_probe_(sent|lost)_total'",
                "tail -3 /tmp/agent2.log",
                "kill $A2; sleep 2", // from here on only the probes under test cross the faulty links
                // faults, each with tc netem: UDP on the namespace's veth (pb), verbs on rxe1's netdev (veth1);
                // answers come back reordered and duplicated from the agent's side (pa, veth0)
                "P='ip netns exec peer bin/fabricd probe 10.9.0.1:9530 --key-file /tmp/pk --size 64 --timeout 2s --format json'",
                "V='bin/fabricd probe 10.0.0.1:9530 --transport verbs --device rxe1 --gid-index 1 --key-file /tmp/pk --size 64"
                        + " --timeout 2s --format json'",
                "fault() { echo \"=====$1=====\"; shift; \"$@\"; echo \"probe-exit=$?\"; }",
                "fault UDP_BASE $P --count 500 --interval 5ms",
                "ip netns exec peer tc qdisc add dev pb root netem delay 1ms",
                "fault UDP_DELAY $P --count 500 --interval 5ms",
                "ip netns exec peer tc qdisc change dev pb root netem loss 1%",
                "fault UDP_LOSS $P --count " + LOSS_PROBES + " --interval 5ms",
                // what netem did drop (its qdisc counts each packet its loss took)
                "echo \"netem-dropped UDP_LOSS $(ip netns exec peer tc -s qdisc show dev pb | grep -o 'dropped [0-9]*' | head -1)\"",
                "ip netns exec peer tc qdisc del dev pb root",
                "tc qdisc add dev pa root netem delay 1ms reorder 25% 50% duplicate 5%",
                "fault UDP_DUP $P --count 2000 --interval 2ms",
                "tc qdisc del dev pa root",
                "tc qdisc add dev veth1 root netem delay 1ms",
                "fault VERBS_DELAY $V --count 300 --interval 10ms",
                "tc qdisc change dev veth1 root netem loss 1%",
                "fault VERBS_LOSS $V --count " + LOSS_PROBES + " --interval 10ms",
                "echo \"netem-dropped VERBS_LOSS $(tc -s qdisc show dev veth1 | grep -o 'dropped [0-9]*' | head -1)\"",
                "tc qdisc del dev veth1 root",
                // verbs probes go 10 ms apart (the emulated responder's pace): answers are held 20 ms, so
                // that those netem lets through at once overtake the one or two still held
                "tc qdisc add dev veth0 root netem delay 20ms reorder 25% 50% duplicate 5%",
                "fault VERBS_DUP $V --count 1000 --interval 10ms",
                "tc qdisc del dev veth0 root",
                "echo '=====END====='",
                "tail -5 /tmp/agent.log");
        String out = SoftRoceVm.run(repo, guest, 1500);
        ObjectMapper json = new ObjectMapper();

        String clean = SoftRoceVm.section(out, "=====CLEAN=====", "=====VERBS=====");
        assertThat(clean).as(out).contains("probe-exit=0");
        JsonNode c = json.readTree(clean.substring(clean.indexOf('{'), clean.lastIndexOf('}') + 1)).get("results");
        assertThat(c).hasSize(2);
        for (JsonNode r : c) {
            assertThat(r.get("received").asInt()).as(clean).isEqualTo(200);
            assertThat(r.get("lost").asInt()).isZero();
        }

        // verbs: rxe1 -> the agent's rxe0 over RoCE v2 UD, every probe answered at 64 B and the path MTU
        String verbs = SoftRoceVm.section(out, "=====VERBS=====", "=====ROUNDS=====");
        assertThat(verbs).as(out).contains("probe-exit=0");
        JsonNode v = json.readTree(verbs.substring(verbs.indexOf('{'), verbs.lastIndexOf('}') + 1)).get("results");
        assertThat(v).hasSize(2);
        for (JsonNode r : v) {
            assertThat(r.get("transport").asText()).isEqualTo("verbs");
            assertThat(r.get("local_device").asText()).isEqualTo("rxe1");
            assertThat(r.get("remote_device").asText()).isEqualTo("rxe0");
            assertThat(r.get("received").asInt()).as(verbs).isEqualTo(VERBS_PROBES);
        }
        assertThat(v.findValuesAsText("size")).containsExactly("64", "1024");
        Matcher lat = Pattern.compile("(?m)^\\s*2\\s+1000\\s+\\S+\\s+\\S+\\s+([0-9.]+)").matcher(out);
        if (lat.find()) {
            double perftest = Double.parseDouble(lat.group(1)) * 2 / 1e6; // t_typical is half a round trip
            double ours = v.get(0).at("/rtt_seconds/p50").asDouble();
            System.out.printf("verbs probe p50 RTT %.1f us vs 2 x ib_send_lat t_typical %.1f us: ratio %.2f%n", ours * 1e6,
                    perftest * 1e6, ours / perftest);
        }

        // the second agent's own rounds: the first agent probed over UDP and verbs, nothing lost
        Map<String, Double> rounds = PromText.parse(SoftRoceVm.section(out, "=====ROUNDS=====", "=====UDP_BASE=====").lines()
                .filter(l -> l.startsWith("fabric_probe_")).collect(Collectors.joining("\n")));
        for (String transport : new String[] {"udp", "verbs"}) {
            String sent = s("fabric_probe_sent_total", "peer", "10.9.0.1:9530", "peer_rack", "", "transport", transport, "size", "64");
            assertThat(rounds.getOrDefault(sent, 0.0)).as(out).isGreaterThanOrEqualTo(transport.equals("verbs") ? 40.0 : 20.0);
            assertThat(rounds.get(s("fabric_probe_lost_total", "peer", "10.9.0.1:9530", "peer_rack", "", "transport", transport,
                    "size", "64"))).isLessThanOrEqualTo(rounds.get(sent) * 0.1);
        }

        // a delay is in every RTT: the fastest probe is at least that much slower than without it (under
        // TCG the median moves with the emulator's load, so the minimum is compared)
        JsonNode base = result(out, "UDP_BASE", "UDP_DELAY");
        JsonNode delayed = result(out, "UDP_DELAY", "UDP_LOSS");
        double shift = delayed.at("/rtt_seconds/min").asDouble() - base.at("/rtt_seconds/min").asDouble();
        System.out.printf("netem delay 1 ms, UDP: RTT min %.1f -> %.1f us (shift %.1f us), p50 %.1f -> %.1f us%n",
                base.at("/rtt_seconds/min").asDouble() * 1e6, delayed.at("/rtt_seconds/min").asDouble() * 1e6, shift * 1e6,
                base.at("/rtt_seconds/p50").asDouble() * 1e6, delayed.at("/rtt_seconds/p50").asDouble() * 1e6);
        assertThat(delayed.get("lost").asInt()).isZero();
        // netem's timers under the emulator run late (+0.5 to +6.7 % in most runs on an idle host, +26 %
        // with another build running beside the VM: every one of 500 probes at least 1.26 ms later); the
        // bound still tells one injected delay from none or two. The relay of UdpRelayFaultTest holds
        // 10 % on real time
        assertThat(shift).as(out).isBetween(0.001 * 0.9, 0.001 * 1.6);
        JsonNode verbsDelayed = result(out, "VERBS_DELAY", "VERBS_LOSS");
        assertThat(verbsDelayed.at("/rtt_seconds/min").asDouble()).as(out).isGreaterThanOrEqualTo(0.001);

        // 1 % loss over 10 000 probes: what fabricd counts lost is what netem dropped, within 0.3 points
        // (netem's own drop counter is the truth: its 1 % is itself a draw, 1 point ± 0.1)
        for (String[] t : new String[][] {{"UDP_LOSS", "UDP_DUP"}, {"VERBS_LOSS", "VERBS_DUP"}}) {
            JsonNode l = result(out, t[0], t[1]);
            Matcher dropped = Pattern.compile("netem-dropped " + t[0] + " dropped (\\d+)").matcher(out);
            assertThat(dropped.find()).as("netem's drop count in:\n" + out).isTrue();
            double injected = 100.0 * Integer.parseInt(dropped.group(1)) / LOSS_PROBES;
            double measured = 100.0 * l.get("lost").asInt() / l.get("sent").asInt();
            System.out.printf("netem loss 1 %%, %s: netem dropped %.2f %%, fabricd counted %d of %d lost (%.2f %%), late %d,"
                    + " responder overloaded %s%n", t[0], injected, l.get("lost").asInt(), l.get("sent").asInt(), measured,
                    l.get("late").asInt(), l.get("responder_overloaded").asBoolean());
            assertThat(l.get("sent").asInt()).isEqualTo(LOSS_PROBES);
            assertThat(injected).as(t[0] + ": netem injected about 1 %").isBetween(0.5, 1.5);
            assertThat(measured).as(t[0]).isBetween(injected - 0.3, injected + 0.3);
        }

        // duplicated and reordered answers are counted, never taken as loss or a negative RTT
        for (String[] t : new String[][] {{"UDP_DUP", "VERBS_DELAY"}, {"VERBS_DUP", "END"}}) {
            JsonNode d = result(out, t[0], t[1]);
            System.out.printf("netem duplicate 5 %%, reorder 25 %%, %s: received %d of %d, lost %d, late %d, duplicated %d, reordered %d,"
                    + " responder overloaded %s%n", t[0], d.get("received").asInt(), d.get("sent").asInt(), d.get("lost").asInt(),
                    d.get("late").asInt(), d.get("duplicated").asInt(), d.get("reordered").asInt(), d.get("responder_overloaded").asBoolean());
            assertThat(d.get("lost").asInt()).as(t[0] + ": " + d).isZero();
            assertThat(d.get("received").asInt()).isEqualTo(d.get("sent").asInt());
            assertThat(d.get("duplicated").asInt()).as(t[0]).isPositive();
            assertThat(d.get("reordered").asInt()).as(t[0]).isPositive();
            assertThat(d.at("/rtt_seconds/min").asDouble()).isGreaterThanOrEqualTo(0);
        }
    }

    /** The one result `fabricd probe` printed between two fault markers; it exited 0. */
    private static JsonNode result(String out, String from, String to) throws Exception {
        String sec = SoftRoceVm.section(out, "=====" + from + "=====", "=====" + to + "=====");
        assertThat(sec).as(out).contains("probe-exit=0");
        return new ObjectMapper().readTree(sec.substring(sec.indexOf('{'), sec.lastIndexOf('}') + 1)).at("/results/0");
    }
}
