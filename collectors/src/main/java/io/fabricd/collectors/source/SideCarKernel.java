package io.fabricd.collectors.source;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.collectors.kernel.EthtoolStats;
import io.fabricd.collectors.kernel.HostReadException;
import io.fabricd.collectors.kernel.KernelQueries;
import io.fabricd.collectors.kernel.QpInfo;
import io.fabricd.collectors.kernel.VerbsDevice;
import io.fabricd.model.DcbState;
import io.fabricd.model.PauseParams;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Kernel answers from a snapshot's side-cars (host-snapshot.md): {@code fabricd/ethtool/<netdev>.txt}
 * and {@code .pause.json}, {@code fabricd/dcb/<netdev>.json} (absent: no DCB support),
 * {@code fabricd/verbs/<device>.json}, and fabricd's addition {@code fabricd/rdma/qp.json}
 * ({@code rdma -j resource show qp} output) and {@code fabricd/lldp/neighbors.json} (lldpcli's JSON). Reads go through the HostSource, so unreadable.txt and
 * the demo's simulation apply to side-cars too.
 */
public final class SideCarKernel implements KernelQueries {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HostSource src;

    public SideCarKernel(HostSource src) {
        this.src = src;
    }

    @Override
    public String kind() {
        return "side-cars";
    }

    private JsonNode json(String path) throws HostReadException {
        String text = src.read(path);
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            throw new HostReadException(path, "not valid JSON");
        }
    }

    @Override
    public EthtoolStats ethtoolStats(String netdev) throws HostReadException {
        String path = "fabricd/ethtool/" + netdev + ".txt";
        String text = src.read(path);
        int[] bad = {0};
        EthtoolStats s = EthtoolStats.parse(text, bad);
        if (bad[0] > 0 && s.stats().isEmpty()) {
            throw new HostReadException(path, "not ethtool -S output");
        }
        return s;
    }

    @Override
    public Optional<PauseParams> pauseParams(String netdev) throws HostReadException {
        String path = "fabricd/ethtool/" + netdev + ".pause.json";
        if (!src.exists(path)) {
            return Optional.empty();
        }
        JsonNode n = json(path);
        return Optional.of(new PauseParams(n.path("autoneg").asBoolean(), n.path("rx").asBoolean(), n.path("tx").asBoolean()));
    }

    /**
     * The DCB side-car: fabricd's own form (host-snapshot.md: {@code pfc.enabled}, {@code app}), or
     * what {@code tools/capture-host.sh} writes: iproute2's answers side by side,
     * {@code {"pfc": <dcb -j -s pfc show>, "app": <dcb -j -N app show>}} ({@code pfc.prio_pfc} is an
     * array of 8 booleans, {@code app.dscp_prio} an array of [dscp, priority] pairs).
     * {@code {"supported": false}} records a netdev without DCB support. An absent side-car means
     * the DCB state was not captured: unknown (ENOENT), never "no DCB support".
     */
    @Override
    public DcbState dcb(String netdev) throws HostReadException {
        String path = "fabricd/dcb/" + netdev + ".json";
        if (!src.exists(path)) {
            throw new HostReadException(path, "ENOENT");
        }
        JsonNode n = json(path);
        if (n.has("supported") && !n.path("supported").asBoolean(true)) {
            return DcbState.UNSUPPORTED;
        }
        JsonNode pfc = n.path("pfc");
        List<String> dcbx = new ArrayList<>();
        n.path("dcbx").forEach(x -> dcbx.add(x.asText()));
        List<Integer> enabled = new ArrayList<>();
        if (pfc.has("prio_pfc")) {
            JsonNode prio = pfc.get("prio_pfc");
            for (int p = 0; p < prio.size() && p < 8; p++) {
                if (prio.get(p).asBoolean(false)) {
                    enabled.add(p);
                }
            }
        } else {
            for (JsonNode e : pfc.path("enabled")) {
                int p = e.asInt(-1);
                if (p < 0 || p > 7) {
                    throw new HostReadException(path, "pfc.enabled holds " + e + ", not a priority 0-7");
                }
                enabled.add(p);
            }
        }
        enabled.sort(null);
        List<DcbState.AppEntry> app = new ArrayList<>();
        JsonNode appNode = n.path("app");
        if (appNode.isArray()) {
            for (JsonNode a : appNode) {
                app.add(new DcbState.AppEntry(a.path("selector").asText(), a.path("protocol").asInt(), a.path("priority").asInt()));
            }
        } else {
            for (JsonNode pair : appNode.path("dscp_prio")) {
                if (pair.isArray() && pair.size() == 2 && pair.get(0).canConvertToInt()) {
                    app.add(new DcbState.AppEntry("dscp", pair.get(0).asInt(), pair.get(1).asInt()));
                }
            }
        }
        return new DcbState(true, dcbx, pfc.path(pfc.has("pfc_cap") ? "pfc_cap" : "cap").asInt(8), enabled,
                pfc.path("delay").asInt(), longs(pfc.path("requests")), longs(pfc.path("indications")), app);
    }

    private static List<Long> longs(JsonNode arr) {
        List<Long> out = new ArrayList<>();
        arr.forEach(x -> out.add(x.asLong()));
        return out;
    }

    /**
     * The verbs side-car: fabricd's JSON ({@code fabricd/verbs/<device>.json}), or what
     * {@code tools/capture-host.sh} writes, {@code ibv_devinfo -v -d <device>} verbatim
     * ({@code fabricd/verbs/<device>.ibv_devinfo.txt}).
     */
    @Override
    public Optional<VerbsDevice> verbs(String device) throws HostReadException {
        String path = "fabricd/verbs/" + device + ".json";
        if (!src.exists(path)) {
            String txt = "fabricd/verbs/" + device + ".ibv_devinfo.txt";
            if (!src.exists(txt)) {
                return Optional.empty();
            }
            VerbsDevice v = VerbsDevice.parseIbvDevinfo(src.read(txt));
            if (v == null) {
                throw new HostReadException(txt, "not ibv_devinfo output (no port)");
            }
            return Optional.of(v);
        }
        JsonNode n = json(path);
        Map<Integer, VerbsDevice.VerbsPort> ports = new HashMap<>();
        for (Map.Entry<String, JsonNode> e : n.path("ports").properties()) {
            JsonNode p = e.getValue();
            int port;
            try {
                port = Integer.parseInt(e.getKey());
            } catch (NumberFormatException ex) {
                throw new HostReadException(path, "port key '" + e.getKey() + "' is not a number");
            }
            ports.put(port, new VerbsDevice.VerbsPort(text(p, "state"), integer(p, "max_mtu"), integer(p, "active_mtu"),
                    text(p, "link_layer"), integer(p, "gid_tbl_len"), text(p, "active_width"), text(p, "active_speed")));
        }
        Long maxQp = n.hasNonNull("max_qp") ? n.get("max_qp").asLong() : null;
        return Optional.of(new VerbsDevice(maxQp, ports));
    }

    private static String text(JsonNode n, String k) {
        return n.hasNonNull(k) ? n.get(k).asText() : null;
    }

    private static Integer integer(JsonNode n, String k) {
        return n.hasNonNull(k) && n.get(k).canConvertToInt() ? n.get(k).asInt() : null;
    }

    /** {@code fabricd/lldp/neighbors.json}: lldpcli's JSON verbatim; absent when lldpd was not asked or not there. */
    @Override
    public Optional<String> lldpNeighbors() throws HostReadException {
        String path = "fabricd/lldp/neighbors.json";
        return src.exists(path) ? Optional.of(src.read(path)) : Optional.empty();
    }

    @Override
    public Optional<List<QpInfo>> queuePairs() throws HostReadException {
        String path = "fabricd/rdma/qp.json";
        if (!src.exists(path)) {
            return Optional.empty();
        }
        List<QpInfo> out = new ArrayList<>();
        for (JsonNode q : json(path)) {
            out.add(new QpInfo(q.path("ifname").asText(), q.path("port").asInt(), q.path("lqpn").asLong(),
                    q.path("type").asText(), q.path("state").asText(),
                    q.hasNonNull("pid") ? q.get("pid").asLong() : null, text(q, "comm")));
        }
        return Optional.of(out);
    }
}
