package io.fabricd.collectors.kernel.live;

import com.sun.jna.LastErrorException;
import io.fabricd.collectors.kernel.HostReadException;
import io.fabricd.collectors.kernel.QpInfo;
import io.fabricd.natives.Errno;
import io.fabricd.natives.LibC;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The RDMA netlink QP dump (docs/spec/host-facts.md §6): device, port, QPN, type, state, owner of every QP. */
final class QpNetlink {
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

    private QpNetlink() {
    }

    /** Every QP of every RDMA device; empty when this kernel has no RDMA netlink. */
    static Optional<List<QpInfo>> dump(LibC libc) throws HostReadException {
        List<ByteBuffer> replies = new ArrayList<>();
        try (Netlink nl = new Netlink(libc, Netlink.NETLINK_RDMA)) {
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
                Netlink.attr(req, ATTR_DEV_INDEX, ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(index[0]).array());
                replies.addAll(nl.request(RDMA_NLDEV_RES_QP_GET, Netlink.NLM_F_REQUEST | Netlink.NLM_F_DUMP, req.toByteArray()));
            }
        } catch (Netlink.NetlinkError e) {
            if (Errno.EOPNOTSUPP.is(e.errno) || Errno.EPROTONOSUPPORT.is(e.errno)) {
                return Optional.empty();
            }
            throw new HostReadException("RDMA_NLDEV_CMD_RES_QP_GET", Errno.describe(e.errno));
        } catch (LastErrorException e) {
            if (Errno.EPROTONOSUPPORT.is(e.getErrorCode())) { // no RDMA netlink in this kernel
                return Optional.empty();
            }
            throw new HostReadException("socket(NETLINK_RDMA)", Errno.describe(e.getErrorCode()));
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
