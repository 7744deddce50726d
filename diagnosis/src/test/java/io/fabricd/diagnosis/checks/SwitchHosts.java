package io.fabricd.diagnosis.checks;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.fabricd.diagnosis.Hosts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * host-b-roce (ens1f0np0 = mlx5_0 port 1, 100 Gb/s, PFC on priority 3) with what the switch-evidence
 * checks read planted: lldpd's neighbour in the shape lldpcli -f json prints one (lldpd's
 * tests/integration/test_lldpcli.py), DCB's per-priority PFC indications, driver statistics.
 */
final class SwitchHosts {
    static final String ND = "ens1f0np0";
    static final String DCB = "fabricd/dcb/" + ND + ".json";

    private SwitchHosts() {
    }

    static Path copy(Path dest) {
        try {
            Files.createDirectories(dest.getParent());
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
        return Hosts.copy("host-b-roce", dest);
    }

    /** lldpd's one neighbour on ens1f0np0: leaf-07 port Ethernet12, MAU type {@code mau} (null: none), held {@code age}. */
    static void lldp(Path root, String mau, String age) {
        lldp(root, mau, age, "leaf-07", "0c:42:a1:5e:7f:00", "Ethernet12");
    }

    /** lldpd's one neighbour on ens1f0np0 as {@code sysName}, {@code chassisId}, port id {@code portId} (subtype local). */
    static void lldp(Path root, String mau, String age, String sysName, String chassisId, String portId) {
        String autoneg = mau == null ? "" : ",\n          \"auto-negotiation\": {\"supported\": true, \"enabled\": false, \"current\": \"" + mau
                + " - made up for the test\"}";
        Hosts.write(root, "fabricd/lldp/neighbors.json", "{\n  \"lldp\": {\n    \"interface\": {\n      \"" + ND + "\": {\n"
                + "        \"via\": \"LLDP\",\n        \"rid\": \"1\",\n        \"age\": \"" + age + "\",\n"
                + "        \"chassis\": {" + TextNode.valueOf(sysName) + ": {\"id\": {\"type\": \"mac\", \"value\": "
                + TextNode.valueOf(chassisId) + "}}},\n"
                + "        \"port\": {\n          \"id\": {\"type\": \"local\", \"value\": " + TextNode.valueOf(portId) + "},\n"
                + "          \"descr\": \"gpu-node-17:ens1f0np0\",\n          \"ttl\": \"120\"" + autoneg + "\n        }\n      }\n    }\n  }\n}\n");
    }

    /** Adds {@code n} to DCB's count of PFC frames received (indications) or sent (requests) on {@code prio}. */
    static void dcbFrames(Path root, String which, int prio, long n) {
        Hosts.json(root, DCB, o -> {
            ArrayNode a = (ArrayNode) o.withObjectProperty("pfc").get(which);
            a.set(prio, a.get(prio).asLong() + n);
        });
    }

    /** Removes the driver statistics whose names match {@code regex}. */
    static void dropStats(Path root, String regex) {
        try {
            Path f = root.resolve("fabricd/ethtool/" + ND + ".txt");
            List<String> kept = Files.readAllLines(f).stream().filter(l -> !l.strip().split(":")[0].matches(regex)).toList();
            Files.writeString(f, kept.stream().collect(Collectors.joining("\n", "", "\n")));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
