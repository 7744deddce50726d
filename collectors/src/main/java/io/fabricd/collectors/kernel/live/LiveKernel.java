package io.fabricd.collectors.kernel.live;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import com.sun.jna.NativeLong;
import io.fabricd.collectors.model.DcbState;
import io.fabricd.collectors.kernel.EthtoolStats;
import io.fabricd.collectors.kernel.KernelQueries;
import io.fabricd.collectors.model.PauseParams;
import io.fabricd.collectors.kernel.QpInfo;
import io.fabricd.collectors.kernel.VerbsDevice;
import io.fabricd.collectors.source.HostReadException;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The live host's non-file answers, through JNA: the SIOCETHTOOL ioctl (facts §2.4), rtnetlink DCB
 * (§3.1) and the RDMA netlink QP dump (§6). All of them work unprivileged in the host network
 * namespace. Native failures become {@link HostReadException}s naming the call and errno.
 */
public final class LiveKernel implements KernelQueries {
    // linux include/uapi/linux/sockios.h, ethtool.h
    static final long SIOCETHTOOL = 0x8946;
    static final int ETHTOOL_GDRVINFO = 0x03;
    static final int ETHTOOL_GPAUSEPARAM = 0x12;
    static final int ETHTOOL_GSTRINGS = 0x1b;
    static final int ETHTOOL_GSTATS = 0x1d;
    static final int ETHTOOL_GSSET_INFO = 0x37;
    static final int ETH_SS_STATS = 1;
    static final int ETH_GSTRING_LEN = 32;
    static final int IFNAMSIZ = 16;
    // linux include/uapi/linux/rtnetlink.h, dcbnl.h
    static final int RTM_GETDCB = 78;
    static final int DCB_CMD_IEEE_GET = 21;
    static final int DCB_ATTR_IFNAME = 1;
    static final int DCB_ATTR_IEEE = 13;
    static final int DCB_ATTR_DCBX = 14;
    static final int DCB_ATTR_IEEE_PFC = 2;
    static final int DCB_ATTR_IEEE_APP_TABLE = 3;
    static final int DCB_ATTR_IEEE_APP = 1;
    // linux include/uapi/rdma/rdma_netlink.h: RDMA_NL_GET_TYPE(RDMA_NL_NLDEV 5, RDMA_NLDEV_CMD_RES_QP_GET 10)
    static final int RDMA_NLDEV_RES_QP_GET = (5 << 10) + 10;
    static final int RDMA_NLDEV_GET = (5 << 10) + 1;
    static final int ATTR_DEV_INDEX = 1;
    static final int ATTR_DEV_NAME = 2;
    static final int ATTR_PORT_INDEX = 3;
    static final int ATTR_RES_QP = 19;
    static final int ATTR_RES_QP_ENTRY = 20;
    static final int ATTR_RES_LQPN = 21;
    static final int ATTR_RES_TYPE = 26;
    static final int ATTR_RES_STATE = 27;
    static final int ATTR_RES_PID = 28;
    static final int ATTR_RES_KERN_NAME = 29;
    // linux include/rdma/ib_verbs.h enum ib_qp_state, enum ib_qp_type
    static final String[] QP_STATES = {"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR"};
    static final String[] QP_TYPES = {"SMI", "GSI", "RC", "UC", "UD", "RAW_IPV6", "RAW_ETHERTYPE", "7", "RAW_PACKET",
        "XRC_INI", "XRC_TGT"};

    @Override
    public String kind() {
        return "kernel";
    }

    private static Memory ifreq(String netdev, Memory data) throws HostReadException {
        byte[] name = netdev.getBytes(StandardCharsets.UTF_8);
        if (name.length >= IFNAMSIZ) {
            throw new HostReadException("ethtool " + netdev, "EINVAL", "netdev name too long");
        }
        Memory ifr = new Memory(40);
        ifr.clear();
        ifr.write(0, name, 0, name.length);
        ifr.setPointer(16, data);
        return ifr;
    }

    private static void ethtool(int fd, String netdev, Memory data) throws LastErrorException, HostReadException {
        LibC.INSTANCE.ioctl(fd, new NativeLong(SIOCETHTOOL), ifreq(netdev, data));
    }

    /** Any socket serves the SIOCETHTOOL ioctl. */
    private static int inetSocket() throws HostReadException {
        try {
            return LibC.INSTANCE.socket(LibC.AF_INET, LibC.SOCK_DGRAM, 0);
        } catch (LastErrorException e) {
            throw new HostReadException("socket(AF_INET)", Errno.name(e.getErrorCode()));
        }
    }

    @Override
    public EthtoolStats ethtoolStats(String netdev) throws HostReadException {
        int fd = inetSocket();
        try {
            Memory drv = new Memory(196); // struct ethtool_drvinfo
            drv.clear();
            drv.setInt(0, ETHTOOL_GDRVINFO);
            ethtool(fd, netdev, drv);
            String driver = drv.getString(4, "UTF-8");
            // The stat count can change between calls (PFC toggled): query count, names and values
            // together, pass the expected count, and retry when the kernel reports another one.
            for (int attempt = 0; attempt < 3; attempt++) {
                Memory sset = new Memory(16 + 4);
                sset.clear();
                sset.setInt(0, ETHTOOL_GSSET_INFO);
                sset.setLong(8, 1L << ETH_SS_STATS);
                ethtool(fd, netdev, sset);
                if ((sset.getLong(8) & (1L << ETH_SS_STATS)) == 0) {
                    return new EthtoolStats(driver, Map.of());
                }
                int n = sset.getInt(16);
                if (n <= 0 || n > 100_000) {
                    return new EthtoolStats(driver, Map.of());
                }
                int room = n + 64; // headroom: old kernels write the current count whatever we ask
                Memory strings = new Memory(12 + (long) room * ETH_GSTRING_LEN);
                strings.clear();
                strings.setInt(0, ETHTOOL_GSTRINGS);
                strings.setInt(4, ETH_SS_STATS);
                strings.setInt(8, n);
                ethtool(fd, netdev, strings);
                Memory stats = new Memory(8 + (long) room * 8);
                stats.clear();
                stats.setInt(0, ETHTOOL_GSTATS);
                stats.setInt(4, n);
                ethtool(fd, netdev, stats);
                if (strings.getInt(8) != n || stats.getInt(4) != n) {
                    continue;
                }
                Map<String, Long> m = new LinkedHashMap<>();
                for (int i = 0; i < n; i++) {
                    byte[] raw = strings.getByteArray(12 + (long) i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
                    int len = 0;
                    while (len < raw.length && raw[len] != 0) {
                        len++;
                    }
                    m.put(new String(raw, 0, len, StandardCharsets.UTF_8), stats.getLong(8 + (long) i * 8));
                }
                return new EthtoolStats(driver, m);
            }
            throw new HostReadException("ethtool -S " + netdev, "EAGAIN", "statistic count kept changing");
        } catch (LastErrorException e) {
            if (e.getErrorCode() == Errno.EOPNOTSUPP) {
                return new EthtoolStats(null, Map.of());
            }
            throw new HostReadException("ethtool -S " + netdev, Errno.name(e.getErrorCode()));
        } finally {
            LibC.INSTANCE.close(fd);
        }
    }

    @Override
    public Optional<PauseParams> pauseParams(String netdev) throws HostReadException {
        int fd = inetSocket();
        try {
            Memory p = new Memory(16); // struct ethtool_pauseparam
            p.clear();
            p.setInt(0, ETHTOOL_GPAUSEPARAM);
            ethtool(fd, netdev, p);
            return Optional.of(new PauseParams(p.getInt(4) != 0, p.getInt(8) != 0, p.getInt(12) != 0));
        } catch (LastErrorException e) {
            if (e.getErrorCode() == Errno.EOPNOTSUPP) {
                return Optional.empty();
            }
            throw new HostReadException("ethtool -a " + netdev, Errno.name(e.getErrorCode()));
        } finally {
            LibC.INSTANCE.close(fd);
        }
    }

    @Override
    public DcbState dcb(String netdev) throws HostReadException {
        ByteArrayOutputStream payload = new ByteArrayOutputStream();
        payload.writeBytes(new byte[] {0, DCB_CMD_IEEE_GET, 0, 0}); // struct dcbmsg {AF_UNSPEC, cmd, pad}
        byte[] name = (netdev + "\0").getBytes(StandardCharsets.UTF_8);
        Netlink.attr(payload, DCB_ATTR_IFNAME, name);
        List<ByteBuffer> replies;
        try (Netlink nl = new Netlink(Netlink.NETLINK_ROUTE)) {
            replies = nl.request(RTM_GETDCB, Netlink.NLM_F_REQUEST, payload.toByteArray());
        } catch (Netlink.NetlinkError e) {
            if (e.errno == Errno.EOPNOTSUPP || e.errno == Errno.EINVAL) {
                return DcbState.UNSUPPORTED; // no dcbnl_ops on this netdev (veth, virtio)
            }
            throw new HostReadException("RTM_GETDCB " + netdev, Errno.name(e.errno));
        } catch (LastErrorException e) {
            throw new HostReadException("RTM_GETDCB " + netdev, Errno.name(e.getErrorCode()));
        }
        if (replies.isEmpty()) {
            return DcbState.UNSUPPORTED;
        }
        return parseDcb(replies.get(0));
    }

    /** Parses a DCB_CMD_IEEE_GET answer: struct dcbmsg then attributes. */
    static DcbState parseDcb(ByteBuffer b) {
        List<String> dcbx = new ArrayList<>();
        int[] pfcCap = {0};
        int[] delay = {0};
        List<Integer> enabled = new ArrayList<>();
        List<Long> req = new ArrayList<>();
        List<Long> ind = new ArrayList<>();
        List<DcbState.AppEntry> app = new ArrayList<>();
        boolean[] ieee = {false};
        Netlink.attrs(b, 4, b.limit(), (type, off, len) -> {
            if (type == DCB_ATTR_DCBX && len >= 1) {
                int m = b.get(off) & 0xff;
                String[] names = {"lld_managed", "host", "cee", "ieee", "static"};
                int[] bits = {0x2, 0x1, 0x4, 0x8, 0x10}; // DCB_CAP_DCBX_* (dcbnl.h)
                for (int i = 0; i < bits.length; i++) {
                    if ((m & bits[i]) != 0) {
                        dcbx.add(names[i]);
                    }
                }
            } else if (type == DCB_ATTR_IEEE) {
                ieee[0] = true;
                Netlink.attrs(b, off, off + len, (t2, o2, l2) -> {
                    if (t2 == DCB_ATTR_IEEE_PFC && l2 >= 136) { // struct ieee_pfc
                        pfcCap[0] = b.get(o2) & 0xff;
                        int en = b.get(o2 + 1) & 0xff;
                        for (int p = 0; p < 8; p++) {
                            if ((en & (1 << p)) != 0) {
                                enabled.add(p);
                            }
                        }
                        delay[0] = b.getShort(o2 + 4) & 0xffff;
                        for (int p = 0; p < 8; p++) {
                            req.add(b.getLong(o2 + 8 + p * 8));
                            ind.add(b.getLong(o2 + 72 + p * 8));
                        }
                    } else if (t2 == DCB_ATTR_IEEE_APP_TABLE) {
                        Netlink.attrs(b, o2, o2 + l2, (t3, o3, l3) -> {
                            if (t3 == DCB_ATTR_IEEE_APP && l3 >= 4) { // struct dcb_app
                                app.add(new DcbState.AppEntry(selector(b.get(o3) & 0xff), b.getShort(o3 + 2) & 0xffff,
                                        b.get(o3 + 1) & 0xff));
                            }
                        });
                    }
                });
            }
        });
        if (!ieee[0]) {
            return DcbState.UNSUPPORTED;
        }
        return new DcbState(true, dcbx, pfcCap[0], enabled, delay[0], req, ind, app);
    }

    /** IEEE_8021QAZ_APP_SEL_* (dcbnl.h). */
    static String selector(int s) {
        return switch (s) {
            case 1 -> "ethertype";
            case 2 -> "tcp";
            case 3 -> "udp";
            case 4 -> "tcp_udp";
            case 5 -> "dscp";
            default -> "selector_" + s;
        };
    }

    /** ibv_query_device/ibv_query_port through the native shim; empty when verbs cannot answer. */
    @Override
    public Optional<VerbsDevice> verbs(String device) throws HostReadException {
        return VerbsShim.query(device);
    }

    @Override
    public Optional<List<QpInfo>> queuePairs() throws HostReadException {
        List<ByteBuffer> replies = new ArrayList<>();
        try (Netlink nl = new Netlink(Netlink.NETLINK_RDMA)) {
            // the kernel dumps resources one device at a time (nldev.c wants RDMA_NLDEV_ATTR_DEV_INDEX):
            // list the devices first, then dump each one's QPs
            for (ByteBuffer dev : nl.request(RDMA_NLDEV_GET, Netlink.NLM_F_REQUEST | Netlink.NLM_F_DUMP, new byte[0])) {
                int[] index = {-1};
                Netlink.attrs(dev, 0, dev.limit(), (type, off, len) -> {
                    if (type == ATTR_DEV_INDEX && len >= 4) {
                        index[0] = dev.getInt(off);
                    }
                });
                if (index[0] < 0) {
                    continue;
                }
                ByteArrayOutputStream req = new ByteArrayOutputStream();
                Netlink.attr(req, ATTR_DEV_INDEX, ByteBuffer.allocate(4).order(java.nio.ByteOrder.nativeOrder()).putInt(index[0]).array());
                replies.addAll(nl.request(RDMA_NLDEV_RES_QP_GET, Netlink.NLM_F_REQUEST | Netlink.NLM_F_DUMP, req.toByteArray()));
            }
        } catch (Netlink.NetlinkError e) {
            if (e.errno == Errno.EOPNOTSUPP || e.errno == 93 /* EPROTONOSUPPORT */) {
                return Optional.empty();
            }
            throw new HostReadException("RDMA_NLDEV_CMD_RES_QP_GET", Errno.name(e.errno));
        } catch (LastErrorException e) {
            if (e.getErrorCode() == 93) { // no RDMA netlink in this kernel
                return Optional.empty();
            }
            throw new HostReadException("socket(NETLINK_RDMA)", Errno.name(e.getErrorCode()));
        }
        List<QpInfo> out = new ArrayList<>();
        for (ByteBuffer b : replies) {
            parseQps(b, out);
        }
        return Optional.of(out);
    }

    static void parseQps(ByteBuffer b, List<QpInfo> out) {
        String[] dev = {null};
        int[] port = {0};
        Netlink.attrs(b, 0, b.limit(), (type, off, len) -> {
            if (type == ATTR_DEV_NAME) {
                dev[0] = Netlink.string(b, off, len);
            } else if (type == ATTR_PORT_INDEX && len >= 4) {
                port[0] = b.getInt(off);
            } else if (type == ATTR_RES_QP) {
                Netlink.attrs(b, off, off + len, (t2, o2, l2) -> {
                    if (t2 != ATTR_RES_QP_ENTRY) {
                        return;
                    }
                    long[] lqpn = {0};
                    String[] qpType = {null};
                    String[] state = {null};
                    Long[] pid = {null};
                    String[] comm = {null};
                    int[] qpPort = {port[0]};
                    Netlink.attrs(b, o2, o2 + l2, (t3, o3, l3) -> {
                        switch (t3) {
                            case ATTR_RES_LQPN -> lqpn[0] = b.getInt(o3) & 0xffffffffL;
                            case ATTR_RES_TYPE -> qpType[0] = name(QP_TYPES, b.get(o3) & 0xff);
                            case ATTR_RES_STATE -> state[0] = name(QP_STATES, b.get(o3) & 0xff);
                            case ATTR_RES_PID -> pid[0] = b.getInt(o3) & 0xffffffffL;
                            case ATTR_RES_KERN_NAME -> comm[0] = "[" + Netlink.string(b, o3, l3) + "]";
                            case ATTR_PORT_INDEX -> qpPort[0] = b.getInt(o3);
                            default -> {
                            }
                        }
                    });
                    out.add(new QpInfo(dev[0], qpPort[0], lqpn[0], qpType[0], state[0], pid[0], comm[0]));
                });
            }
        });
    }

    private static String name(String[] names, int i) {
        return i < names.length ? names[i] : Integer.toString(i);
    }
}
