package io.fabricd.collectors.pcie;

import io.fabricd.model.PcieConfig;

/**
 * Decodes the registers fabricd reads from a PCI function's config space, as sysfs' {@code config}
 * returns it (little-endian; PCI Express Base Specification, PCI Local Bus Specification). The walk
 * of each capability list is bounded (48 standard entries, 960 extended ones, as the kernel's) and
 * never reads past the bytes given: a truncated read or a corrupt pointer leaves a field unknown,
 * never wrong.
 */
public final class ConfigSpace {
    static final int CAP_ID_EXP = 0x10;
    static final int EXT_CAP_ID_ACS = 0x000d;
    private static final int STATUS = 0x06;
    private static final int STATUS_CAP_LIST = 0x10;
    private static final int CAPABILITY_LIST = 0x34;
    private static final int EXP_DEVCAP = 4;
    private static final int EXP_DEVCTL = 8;
    private static final int DEVCTL_RELAXED_ORDERING = 1 << 4;

    private ConfigSpace() {
    }

    /** The config of {@code address} from {@code b}, the bytes its {@code config} file returned. */
    public static PcieConfig decode(String address, byte[] b) {
        if (b.length >= 4 && u32(b, 0) == 0xffffffffL) {
            // a function that fell off the bus (or whose link went down) answers every config read
            // with all ones: nothing in it is a register value
            return new PcieConfig(address, b.length, null, null, null, null, null, true);
        }
        Integer mps = null;
        Integer mpss = null;
        Integer mrrs = null;
        Boolean ro = null;
        int exp = find(b, CAP_ID_EXP);
        if (exp >= 0 && exp + EXP_DEVCTL + 2 <= b.length) {
            long devcap = u32(b, exp + EXP_DEVCAP);
            int devctl = u16(b, exp + EXP_DEVCTL);
            mpss = size((int) (devcap & 0x7));
            mps = size((devctl >> 5) & 0x7);
            mrrs = size((devctl >> 12) & 0x7);
            ro = (devctl & DEVCTL_RELAXED_ORDERING) != 0;
        }
        PcieConfig.Acs acs = null;
        int at = findExtended(b, EXT_CAP_ID_ACS);
        if (at >= 0 && at + 8 <= b.length) {
            acs = new PcieConfig.Acs(u16(b, at + 4), u16(b, at + 6));
        }
        return new PcieConfig(address, b.length, mps, mpss, mrrs, ro, acs, false);
    }

    /** 128 << v bytes for the encodings 0..5; the reserved 6 and 7 are unknown. */
    private static Integer size(int v) {
        return v <= 5 ? 128 << v : null;
    }

    /** Offset of standard capability {@code id}, or -1. */
    static int find(byte[] b, int id) {
        if (b.length < CAPABILITY_LIST + 1 || (u16(b, STATUS) & STATUS_CAP_LIST) == 0) {
            return -1;
        }
        int pos = b[CAPABILITY_LIST] & 0xfc;
        for (int ttl = 48; ttl > 0 && pos >= 0x40 && pos + 2 <= b.length; ttl--) {
            if ((b[pos] & 0xff) == id) {
                return pos;
            }
            pos = b[pos + 1] & 0xfc;
        }
        return -1;
    }

    /** Offset of extended capability {@code id} (from 0x100, so 4 KiB must have been read), or -1. */
    static int findExtended(byte[] b, int id) {
        int pos = 0x100;
        for (int ttl = (4096 - 0x100) / 8; ttl > 0 && pos >= 0x100 && pos + 4 <= b.length; ttl--) {
            long header = u32(b, pos);
            if (header == 0 || header == 0xffffffffL) {
                return -1;
            }
            if ((header & 0xffff) == id) {
                return pos;
            }
            pos = (int) (header >>> 20) & 0xffc;
        }
        return -1;
    }

    private static int u16(byte[] b, int at) {
        return (b[at] & 0xff) | (b[at + 1] & 0xff) << 8;
    }

    private static long u32(byte[] b, int at) {
        return (u16(b, at) | (long) u16(b, at + 2) << 16) & 0xffffffffL;
    }
}
