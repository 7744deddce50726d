package io.fabricd.agent.demo;

import io.fabricd.collectors.kernel.HostReadException;
import io.fabricd.collectors.source.ForwardingHostSource;
import io.fabricd.collectors.source.SnapshotHostSource;
import io.fabricd.model.CounterWidths;
import io.fabricd.model.Counters;
import java.util.function.LongSupplier;

/**
 * A snapshot whose counters advance: every counter file ({@code counters/}, {@code hw_counters/})
 * and every {@code ethtool -S} side-car statistic reads as its snapshot value plus
 * {@code rate × elapsed seconds}. Rates are a fixed function of the counter's name and device, so the
 * same elapsed time always gives the same values (tests inject the clock). Fixed-width PMA counters
 * saturate at their maximum, as on hardware.
 *
 * <p>The traffic: InfiniBand ports move 4-8 GB/s each way; RoCE ports carry RDMA on priority 3 with
 * ECN marks and CNPs. The planted problems keep moving: mlx5_3 keeps retraining its link
 * (link_error_recovery) with symbol_error pinned at 65535; mlx5_7, whose RoCE priority has no PFC,
 * keeps dropping (rx_discards_phy, out_of_sequence, packet_seq_err, local_ack_timeout_err).
 */
public final class SimulatedHostSource extends ForwardingHostSource {
    private static final String LOSSY_DEVICE = "mlx5_7";
    private static final String LOSSY_NETDEV = "ens8f0np0";
    private static final String FLAPPING_DEVICE = "mlx5_3";

    private final LongSupplier elapsedMillis;

    public SimulatedHostSource(SnapshotHostSource base, LongSupplier elapsedMillis) {
        super(base);
        this.elapsedMillis = elapsedMillis;
    }

    @Override
    public String read(String path) throws HostReadException {
        String text = super.read(path);
        double t = elapsedMillis.getAsLong() / 1000.0;
        if (t <= 0) {
            return text;
        }
        int c = path.lastIndexOf("/counters/");
        int hw = path.lastIndexOf("/hw_counters/");
        if (c >= 0 || hw >= 0) {
            String name = path.substring(path.lastIndexOf('/') + 1);
            if (name.equals("lifespan")) {
                return text;
            }
            Long v = Counters.parse(text);
            if (v == null) {
                return text;
            }
            String dev = device(path);
            long next = v + (long) (rate(dev, name, hw >= 0) * t);
            if (c >= 0 && hw < 0) {
                Integer w = CounterWidths.fixedWidths().get(name); // the demo's data counters are 64-bit
                if (w != null) {
                    next = Math.min(next, (1L << w) - 1);
                }
            }
            return Long.toUnsignedString(next) + "\n";
        }
        if (path.startsWith("fabricd/ethtool/") && path.endsWith(".txt")) {
            String netdev = path.substring("fabricd/ethtool/".length(), path.length() - 4);
            return ethtool(netdev, text, t);
        }
        return text;
    }

    private static String device(String path) {
        int i = path.indexOf("infiniband/");
        if (i < 0) {
            return "";
        }
        int s = i + "infiniband/".length();
        int e = path.indexOf('/', s);
        return e < 0 ? path.substring(s) : path.substring(s, e);
    }

    /** Per-second increment of a counter of a device. */
    static double rate(String dev, String name, boolean hw) {
        double scale = 1.0 + (Math.abs(dev.hashCode()) % 5) / 5.0; // 1.0 .. 1.8 per device
        boolean lossy = dev.equals(LOSSY_DEVICE);
        if (!hw) {
            return switch (name) {
                case "port_xmit_data", "port_rcv_data" -> 1.0e9 * scale; // 4-octet words: 4-7 GB/s
                case "port_xmit_packets", "port_rcv_packets", "unicast_xmit_packets", "unicast_rcv_packets" ->
                        1.0e9 * scale / 1024;
                case "multicast_xmit_packets", "multicast_rcv_packets" -> 0.5;
                case "port_xmit_wait" -> 2.0e5 * scale;
                case "link_error_recovery" -> dev.equals(FLAPPING_DEVICE) ? 1.0 / 600 : 0;
                case "symbol_error" -> dev.equals(FLAPPING_DEVICE) ? 2.0 : 0;
                default -> 0;
            };
        }
        return switch (name) {
            case "rx_write_requests" -> 4.0e5 * scale;
            case "rx_read_requests" -> 2.0e3 * scale;
            case "sent_pkts", "rcvd_pkts" -> 1.0e4;
            case "rdma_sends", "rdma_recvs" -> 5.0e3;
            case "np_ecn_marked_roce_packets", "np_cnp_sent", "rp_cnp_handled" -> lossy ? 0 : 40 * scale;
            case "out_of_sequence", "packet_seq_err" -> lossy ? 25 : 0;
            case "local_ack_timeout_err" -> lossy ? 3 : 0;
            default -> 0;
        };
    }

    static double ethtoolRate(String netdev, String stat) {
        boolean lossy = netdev.equals(LOSSY_NETDEV);
        if (stat.endsWith("_bytes") || stat.endsWith("_bytes_phy")) {
            return stat.contains("prio0") || stat.contains("prio3") || !stat.contains("prio") ? 4.0e9 : 0;
        }
        if (stat.endsWith("_packets") || stat.endsWith("_packets_phy")) {
            return stat.contains("prio0") || stat.contains("prio3") || !stat.contains("prio") ? 1.0e6 : 0;
        }
        if (stat.matches("[rt]x_prio3_pause")) {
            return 120;
        }
        if (stat.matches("[rt]x_prio3_pause_duration")) {
            return 6000; // microseconds per second: 0.6 % of the time paused
        }
        if (stat.equals("rx_pause_ctrl_phy") || stat.equals("tx_pause_ctrl_phy")) {
            return lossy ? 30 : 120;
        }
        if (stat.matches("[rt]x_global_pause")) {
            return 30; // listed on the lossy port only: 802.3x pause on instead of PFC
        }
        if (stat.matches("[rt]x_global_pause_duration")) {
            return 1500; // microseconds per second
        }
        if (stat.equals("rx_discards_phy") || stat.equals("rx_prio3_discards")) {
            return lossy ? 20 : 0;
        }
        if (stat.equals("rx_prio3_marked") || stat.equals("rx_ecn_mark")) {
            return lossy ? 0 : 40;
        }
        return 0;
    }

    private static String ethtool(String netdev, String text, double t) {
        StringBuilder out = new StringBuilder(text.length() + 256);
        for (String line : text.split("\n", -1)) {
            int colon = line.lastIndexOf(": ");
            Long v = colon < 0 ? null : Counters.parse(line.substring(colon + 2));
            if (v == null) {
                out.append(line).append('\n');
                continue;
            }
            String stat = line.substring(0, colon).strip();
            out.append(line, 0, colon + 2).append(Long.toUnsignedString(v + (long) (ethtoolRate(netdev, stat) * t))).append('\n');
        }
        out.setLength(Math.max(0, out.length() - 1));
        return out.toString();
    }

    @Override
    public String describe() {
        return "demo (" + super.describe() + ")";
    }
}
