package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * {@code fabricd preflight} on a real verbs stack: in the Soft-RoCE VM two live agents, one in the
 * root namespace and one in a namespace behind a veth pair, probe each other over UDP and RDMA UD
 * (their pingmesh, the verbs transport) and serve RDMA WRITE bandwidth tests over RC queue pairs.
 * The gate, run from the root namespace, joins their findings, their pingmesh windows (verbs among
 * them), its own probe round and a bandwidth test each way into one verdict. Under the emulator rxe
 * moves a few percent of veth's 10 Gb/s: with the default ratio (0.8) the link is bad on bandwidth,
 * with the measured numbers in its evidence, and with two nodes neither end can be cleared (both
 * unknown, none kept: exit 2); with a ratio below what the emulator moves, the same set passes. The
 * two agents share the VM's host name and go by their own node names.
 */
class PreflightVmIT {

    @Test
    void gatesTwoLiveAgentsOnVerbsProbesAndRealBandwidthTests() throws Exception {
        Requirements.program("qemu-system-x86_64", "bash testbed/softroce-vm.sh --setup installs the test bed");
        Path repo = Requirements.repoRoot();
        String gate = "bin/fabricd preflight --nodes @/tmp/nodes --key-file /tmp/pk --bandwidth-duration 3s --timeout 150s --format json"
                // rxe under a CPU emulator answers in milliseconds, above the absolute bounds meant for a fabric
                + " --p50-bound udp=1s,verbs=1s"
                + " --exclude-list /tmp/out/excluded.tsv";
        String guest = String.join("\n",
                "cd " + repo,
                "set -e",
                SoftRoceVm.PEER_NAMESPACE,
                "mkdir -p /tmp/out",
                SoftRoceVm.PROBE_KEY,
                // GID index 1 (the IPv4 RoCE v2 GID): both rxe live in one netns, as the test bed's perftest runs.
                // Collections every 20 s: each takes an emulated CPU for about 0.3 s, and the gate holds one older
                // than three intervals stale
                "conf() { printf 'collection:\\n  interval: 20s\\nprobe:\\n  key_file: /tmp/pk\\n  gid_index: 1\\n  node_name: %s\\n"
                        + "  peers: [\"%s\"]\\n  interval: 3s\\n  count: 20\\nbandwidth:\\n  min_interval: 0s\\n' $1 $2 > /tmp/$1.yaml; }",
                "conf vm-a 10.9.0.2:9530",
                "conf vm-b 10.9.0.1:9530",
                "printf 'vm-a=10.9.0.1:9530\\nvm-b=10.9.0.2:9530\\n' > /tmp/nodes",
                "bin/fabricd run --config /tmp/vm-a.yaml --listen 10.9.0.1:9530 > /tmp/vm-a.log 2>&1 &",
                "ip netns exec peer bin/fabricd run --config /tmp/vm-b.yaml --listen 10.9.0.2:9530 > /tmp/vm-b.log 2>&1 &",
                "set +e",
                "get() { timeout 10 bash -c \"exec 3<>/dev/tcp/$1/9530 && printf 'GET $2 HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3\" 2>/dev/null; }",
                // both pingmeshes have probed the other over verbs (40 probes: two rounds)
                "verbs() { grep -E '^fabric_probe_sent_total\\{.*transport=\"verbs\".*\\} ([4-9][0-9]|[0-9]{3,})'; }",
                "for i in $(seq 150); do get 10.9.0.1 /metrics | verbs > /dev/null && get 10.9.0.2 /metrics | verbs > /dev/null && break; sleep 2; done",
                "echo \"verbs windows after $((i * 2)) s\"",
                "get 10.9.0.1 /metrics | grep -E '^fabric_probe_(sent|lost)_total'; get 10.9.0.2 /metrics | grep -E '^fabric_probe_(sent|lost)_total'",
                "echo '=====DEFAULT====='",
                gate + "; echo gate-exit=$?",
                "echo '=====EXCLUDED====='",
                "cat /tmp/out/excluded.tsv",
                "echo '=====LOW====='",
                gate + " --bandwidth-ratio 0.0001; echo gate-exit=$?",
                "echo '=====END====='",
                "tail -n 5 /tmp/vm-a.log; tail -n 5 /tmp/vm-b.log");
        String out = SoftRoceVm.run(repo, guest, 1200);
        ObjectMapper json = new ObjectMapper();

        // the default policy: the link moves far below 0.8 of veth's ceiling, in both directions measured
        String def = SoftRoceVm.section(out, "=====DEFAULT=====", "=====EXCLUDED=====");
        // neither end has another link that passed on bandwidth: both unknown, none kept, and the job cannot run (exit 2)
        assertThat(def).as(out).contains("gate-exit=2").contains("only 0 of 2 nodes kept, fewer than --min-nodes 1")
                .doesNotContain("Exception").doesNotContain("one agent under several names");
        JsonNode d = json.readTree(def.substring(def.indexOf('{'), def.lastIndexOf('}') + 1));
        JsonNode link = d.get("links").get(0);
        assertThat(d.get("links")).as(def).hasSize(1);
        assertThat(link.get("verdict").asText()).as(def).isEqualTo("exclude");
        JsonNode e = link.get("evidence");
        // the pingmesh's verbs windows and the gate's own UDP round, every probe answered
        assertThat(json.convertValue(e.get("transports"), String[].class)).as(def).contains("verbs", "udp");
        assertThat(e.get("sent").asLong()).as(def).isGreaterThanOrEqualTo(80);
        assertThat(e.get("lost").asLong()).as(def).isLessThanOrEqualTo(e.get("sent").asLong() / 20);
        double ratio = e.get("bandwidth_ratio").asDouble();
        assertThat(ratio).as(def).isGreaterThan(0).isLessThan(0.8);
        // what the test moved against the link's ceiling, in the reason and the evidence
        assertThat(link.get("reasons").get(0).asText()).as(def).containsPattern("of the link's ceiling \\([0-9.]+ [MG]b/s of [0-9.]+ Gb/s,"
                + " at least 80 % expected\\)");
        assertThat(e.get("bandwidth_bits_per_second").asDouble()).as(def).isPositive();
        // veth reports 10 000 Mb/s
        assertThat(e.get("bandwidth_ceiling_bits_per_second").asDouble()).as(def).isBetween(5e9, 10e9 + 1e6);
        for (JsonNode n : d.get("nodes")) {
            assertThat(n.get("evidence").get("state").asText()).as(def).isEqualTo("reachable");
            assertThat(n.get("verdict").asText()).as(def).isEqualTo("unknown");
            assertThat(n.get("reasons").get(0).asText()).as(def).contains("could not tell which end is bad");
        }
        assertThat(SoftRoceVm.section(out, "=====EXCLUDED=====", "=====LOW=====")).as(out).contains("vm-a\tunknown\t")
                .contains("vm-b\tunknown\t");
        System.out.printf("preflight in the VM: link vm-a<->vm-b %d probes over %s, %d lost; bandwidth %.3f of the ceiling%n",
                e.get("sent").asLong(), e.get("transports"), e.get("lost").asLong(), ratio);

        // below what the emulator moves: the same set passes, the link judged on both measures
        String low = SoftRoceVm.section(out, "=====LOW=====", "=====END=====");
        assertThat(low).as(out).contains("gate-exit=0").doesNotContain("Exception");
        JsonNode l = json.readTree(low.substring(low.indexOf('{'), low.lastIndexOf('}') + 1));
        assertThat(l.get("verdict").asText()).as(low).isEqualTo("pass");
        assertThat(l.get("kept").asInt()).isEqualTo(2);
        assertThat(l.get("links").get(0).get("verdict").asText()).as(low).isEqualTo("pass");
        assertThat(l.get("links").get(0).get("evidence").get("bandwidth_ratio").asDouble()).as(low).isPositive();
        assertThat(l.get("excluded").asText()).isEmpty();
    }
}
