package io.fabricd.collectors.lldp;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads {@code lldpcli -f json show neighbors details} (lldpd 0.9 and later; its writer is
 * src/client/json_writer.c, its expected output tests/integration/test_lldpcli.py). The writer folds
 * what it prints, and so the shape changes with the count:
 * <ul>
 * <li>a list of one is printed as the element itself: one neighbour gives
 *     {@code "interface": {"eth0": {...}}}, several give {@code "interface": [{"eth0": {...}}, {"eth1": {...}}]}
 *     (one netdev twice when it has two neighbours);</li>
 * <li>an element that has a {@code name} is keyed by it: the interface by its netdev name, the chassis by
 *     its system name ({@code "chassis": {"leaf-07": {"id": {...}}}}); a chassis without a name is
 *     {@code "chassis": {"id": {...}, ...}};</li>
 * <li>an element with only a value is that value ({@code "descr": "Ethernet12"}); "yes"/"on" and
 *     "no"/"off" become booleans.</li>
 * </ul>
 * No neighbour at all is {@code {"lldp": {}}}. lldpcli's older {@code -f json0} (nothing folded,
 * every element a list) is refused with a message saying so.
 */
final class LldpJson {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern AGE = Pattern.compile("^(\\d{1,6}) days?, (\\d{1,2}):(\\d\\d):(\\d\\d)$");

    private LldpJson() {
    }

    /** One neighbour as lldpd shows it on one of the host's interfaces. */
    record Announcement(String netdev, String chassisId, String sysName, String portIdType, String portId, String portDescr,
                        String mauType, Long ageSeconds) {
        /**
         * The switch's port as announced: its port id when that is a name (subtype ifname or local), else
         * its port description, else its port id. Not yet checked to be a name ({@link NeighborNames}).
         */
        String switchPort() {
            return "ifname".equals(portIdType) || "local".equals(portIdType) || portDescr == null ? portId : portDescr;
        }

        /**
         * What tells one far end from another: its chassis and port ids, and the system and port names it
         * is exported under, as announced (so a name that rotates, valid or not, counts as a change).
         */
        String identity() {
            return chassisId + "|" + portIdType + ":" + portId + "|" + sysName + "|" + switchPort();
        }
    }

    /** Input that is not what lldpcli's JSON writer prints; the message says what is wrong, in words. */
    static final class Malformed extends Exception {
        private static final long serialVersionUID = 1L;

        Malformed(String message) {
            super(message);
        }
    }

    static List<Announcement> parse(String text) throws Malformed {
        JsonNode root;
        try {
            root = JSON.readTree(text);
        } catch (JsonProcessingException e) {
            // a limit Jackson enforces (nesting depth, number length) has no location
            throw new Malformed(e.getLocation() == null ? "not valid JSON (" + e.getOriginalMessage() + ")"
                    : "not valid JSON (line " + e.getLocation().getLineNr() + ")");
        }
        if (root == null || !root.isObject() || !root.has("lldp")) {
            throw new Malformed("no \"lldp\" object at the top: not lldpcli -f json output");
        }
        JsonNode lldp = root.get("lldp");
        if (lldp.isArray()) {
            throw new Malformed("lldpcli's json0 format (every element a list): run lldpcli -f json");
        }
        if (!lldp.isObject()) {
            throw new Malformed("\"lldp\" is " + lldp.getNodeType() + ", not an object");
        }
        JsonNode ifaces = lldp.path("interface");
        List<Announcement> out = new ArrayList<>();
        if (ifaces.isMissingNode()) {
            return out; // no neighbour
        }
        if (ifaces.isObject()) {
            named(ifaces, out);
        } else if (ifaces.isArray()) {
            for (JsonNode one : ifaces) {
                if (!one.isObject()) {
                    throw new Malformed("an entry of \"interface\" is " + one.getNodeType() + ", not an object keyed by the netdev");
                }
                named(one, out);
            }
        } else {
            throw new Malformed("\"interface\" is " + ifaces.getNodeType() + ", not an object or a list");
        }
        return out;
    }

    private static void named(JsonNode byName, List<Announcement> out) throws Malformed {
        for (Map.Entry<String, JsonNode> e : byName.properties()) {
            out.add(announcement(e.getKey(), e.getValue()));
        }
    }

    private static Announcement announcement(String netdev, JsonNode iface) throws Malformed {
        if (!iface.isObject()) {
            throw new Malformed("interface " + netdev + " is " + iface.getNodeType() + ", not an object");
        }
        JsonNode chassis = iface.path("chassis");
        if (!chassis.isObject()) {
            throw new Malformed("interface " + netdev + " has no \"chassis\" object");
        }
        String sysName = null;
        if (keyedByName(chassis)) {
            Map.Entry<String, JsonNode> only = chassis.properties().iterator().next();
            sysName = only.getKey().isEmpty() ? null : only.getKey();
            chassis = only.getValue();
        } else if (!chassis.has("id")) {
            throw new Malformed("the chassis on " + netdev + " has neither an \"id\" nor one system name as its key");
        }
        JsonNode port = iface.path("port");
        if (!port.isObject()) {
            throw new Malformed("interface " + netdev + " has no \"port\" object");
        }
        JsonNode autoneg = port.path("auto-negotiation");
        return new Announcement(netdev, value(chassis.path("id")), sysName, text(port.path("id").path("type")),
                value(port.path("id")), text(port.path("descr")), mau(text(autoneg.path("current"))), age(text(iface.path("age"))));
    }

    /**
     * {"leaf-07": {"id": {...}, ...}}: one key whose object holds the id. A switch named "id" is
     * {"id": {"id": {...}}}; a chassis without a name is {"id": {"type": ..., "value": ...}, ...}.
     */
    private static boolean keyedByName(JsonNode chassis) {
        if (chassis.size() != 1) {
            return false;
        }
        JsonNode only = chassis.properties().iterator().next().getValue();
        return only.isObject() && only.has("id") || !chassis.has("id");
    }

    /** {"type": ..., "value": ...} or the folded value itself. */
    private static String value(JsonNode n) {
        return n.isObject() ? text(n.path("value")) : text(n);
    }

    private static String text(JsonNode n) {
        return n.isValueNode() && !n.asText().isEmpty() ? n.asText() : null;
    }

    /** "100GbaseCR4 - 100GBASE-R PCS/PMA over 4 lane shielded copper balanced cable" -> "100GbaseCR4". */
    private static String mau(String current) {
        if (current == null) {
            return null;
        }
        int dash = current.indexOf(" - ");
        return (dash < 0 ? current : current.substring(0, dash)).strip();
    }

    /** lldpd's "%d day(s), %02d:%02d:%02d" since the neighbour last changed. */
    static Long age(String s) {
        if (s == null) {
            return null;
        }
        Matcher m = AGE.matcher(s.strip());
        if (!m.matches()) {
            return null;
        }
        return Long.parseLong(m.group(1)) * 86_400 + Long.parseLong(m.group(2)) * 3600 + Long.parseLong(m.group(3)) * 60
                + Long.parseLong(m.group(4));
    }
}
