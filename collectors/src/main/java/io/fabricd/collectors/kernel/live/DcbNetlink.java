package io.fabricd.collectors.kernel.live;

import com.sun.jna.LastErrorException;
import io.fabricd.collectors.kernel.HostReadException;
import io.fabricd.model.DcbState;
import io.fabricd.natives.Errno;
import io.fabricd.natives.LibC;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** A netdev's IEEE DCB configuration (PFC, DCBX mode, APP table) over rtnetlink (docs/spec/host-facts.md §3.1). */
final class DcbNetlink {
    // linux include/uapi/linux/rtnetlink.h, dcbnl.h
    static final int RTM_GETDCB = 78;
    static final int DCB_CMD_IEEE_GET = 21;
    static final int DCB_ATTR_IFNAME = 1;
    static final int DCB_ATTR_IEEE = 13;
    static final int DCB_ATTR_DCBX = 14;
    static final int DCB_ATTR_IEEE_PFC = 2;
    static final int DCB_ATTR_IEEE_APP_TABLE = 3;
    static final int DCB_ATTR_IEEE_APP = 1;

    private DcbNetlink() {
    }

    /** The netdev's IEEE DCB state (DCB_CMD_IEEE_GET); UNSUPPORTED without dcbnl_ops. */
    static DcbState ieee(LibC libc, String netdev) throws HostReadException {
        ByteArrayOutputStream payload = new ByteArrayOutputStream();
        payload.writeBytes(new byte[] {0, DCB_CMD_IEEE_GET, 0, 0}); // struct dcbmsg {AF_UNSPEC, cmd, pad}
        byte[] name = (netdev + "\0").getBytes(StandardCharsets.UTF_8);
        Netlink.attr(payload, DCB_ATTR_IFNAME, name);
        List<ByteBuffer> replies;
        try (Netlink nl = new Netlink(libc, Netlink.NETLINK_ROUTE)) {
            replies = nl.request(RTM_GETDCB, Netlink.NLM_F_REQUEST, payload.toByteArray());
        } catch (Netlink.NetlinkError e) {
            if (Errno.EOPNOTSUPP.is(e.errno) || Errno.EINVAL.is(e.errno)) {
                return DcbState.UNSUPPORTED; // no dcbnl_ops on this netdev (veth, virtio)
            }
            throw new HostReadException("RTM_GETDCB " + netdev, Errno.describe(e.errno));
        } catch (LastErrorException e) {
            throw new HostReadException("RTM_GETDCB " + netdev, Errno.describe(e.getErrorCode()));
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
}
