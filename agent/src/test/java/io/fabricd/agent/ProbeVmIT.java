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
 * at 64 and 1024 bytes, then, with {@code tc netem loss 20% delay 5ms} on its veth, measures a loss
 * within a few points of 20 % and RTTs of at least 5 ms. Over verbs, rxe1 probes the agent's rxe0 UD
 * responder through the JNA shim with every probe answered; perftest's ib_send_lat runs first, and
 * the ratio of the RTTs is printed (docs/benchmarks.md).
 */
class ProbeVmIT {
    static final int PROBES = 1000;

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
                "ip netns add peer",
                "ip link add pa type veth peer name pb",
                "ip link set pb netns peer",
                "ip addr add 10.9.0.1/24 dev pa && ip link set pa up",
                "ip netns exec peer ip addr add 10.9.0.2/24 dev pb",
                "ip netns exec peer ip link set pb up && ip netns exec peer ip link set lo up",
                "(umask 077 && echo probe-key-for-the-vm-test-0123456789 > /tmp/pk)",
                // GID index 1 (link-local RoCE v2), as the test bed's perftest runs: both rxe live in one netns
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
                "ip netns exec peer bin/fabricd run --config /tmp/agent2.yaml --listen 10.9.0.2:9530 > /tmp/agent2.log 2>&1 &",
                "set +e",
                "for i in $(seq 300); do ready && break; sleep 1; done",
                "echo \"agent ready after ${i}s\"; tail -3 /tmp/agent.log",
                "echo '=====CLEAN====='",
                "ip netns exec peer bin/fabricd probe 10.9.0.1:9530 --key-file /tmp/pk --count 200 --size 64 --size 1024 --format json;"
                        + " echo \"probe-exit=$?\"",
                "echo '=====VERBS====='",
                "bin/fabricd probe 10.0.0.1:9530 --transport verbs --device rxe1 --gid-index 1 --key-file /tmp/pk --count 200 --format json;"
                        + " echo \"probe-exit=$?\"",
                "echo '=====ROUNDS====='",
                "m2() { ip netns exec peer timeout 10 bash -c 'exec 3<>/dev/tcp/10.9.0.2/9530 && printf \"GET /metrics HTTP/1.0\\r\\n\\r\\n\" >&3"
                        + " && cat <&3' 2>/dev/null; }",
                "for i in $(seq 100); do m2 | grep -qE '^fabric_probe_sent_total\\{.*transport=\"verbs\".*\\} ([4-9][0-9]|[0-9]{3,})' && break; sleep 3; done",
                "m2 | grep -E '^fabric_probe_(sent|lost)_total'",
                "tail -3 /tmp/agent2.log",
                "ip netns exec peer tc qdisc add dev pb root netem loss 20% delay 5ms",
                "echo '=====LOSS====='",
                "ip netns exec peer bin/fabricd probe 10.9.0.1:9530 --key-file /tmp/pk --count " + PROBES
                        + " --size 64 --interval 5ms --timeout 2s --format json; echo \"probe-exit=$?\"",
                "echo '=====END====='",
                "tail -5 /tmp/agent.log");
        String out = SoftRoceVm.run(repo, guest, 1200);
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
            assertThat(r.get("received").asInt()).as(verbs).isEqualTo(200);
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
        Map<String, Double> rounds = PromText.parse(SoftRoceVm.section(out, "=====ROUNDS=====", "=====LOSS=====").lines()
                .filter(l -> l.startsWith("fabric_probe_")).collect(Collectors.joining("\n")));
        for (String transport : new String[] {"udp", "verbs"}) {
            String sent = s("fabric_probe_sent_total", "peer", "10.9.0.1:9530", "peer_rack", "", "transport", transport, "size", "64");
            assertThat(rounds.getOrDefault(sent, 0.0)).as(out).isGreaterThanOrEqualTo(transport.equals("verbs") ? 40.0 : 20.0);
            assertThat(rounds.get(s("fabric_probe_lost_total", "peer", "10.9.0.1:9530", "peer_rack", "", "transport", transport,
                    "size", "64"))).isLessThanOrEqualTo(rounds.get(sent) * 0.1);
        }

        String loss = SoftRoceVm.section(out, "=====LOSS=====", "=====END=====");
        assertThat(loss).as(out).contains("probe-exit=0");
        JsonNode l = json.readTree(loss.substring(loss.indexOf('{'), loss.lastIndexOf('}') + 1)).at("/results/0");
        double measured = l.get("lost").asDouble() / l.get("sent").asInt();
        System.out.printf("netem loss 20%%: measured %.1f %% of %d probes; p50 RTT %.2f ms%n", measured * 100, PROBES,
                l.at("/rtt_seconds/p50").asDouble() * 1000);
        assertThat(measured).as(loss).isBetween(0.15, 0.25); // binomial sd at n=1000: 1.3 points
        assertThat(l.at("/rtt_seconds/p50").asDouble()).isGreaterThanOrEqualTo(0.005);
    }
}
