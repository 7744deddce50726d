package io.fabricd.collectors.pcie;

import io.fabricd.model.PcieConfig;
import io.fabricd.model.PcieConfig.Walk;
import io.fabricd.model.PcieConfig.Walk.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Decodes the registers fabricd reads from a PCI function's config space, as sysfs' {@code config}
 * returns it (little-endian; PCI Express Base Specification, PCI Local Bus Specification, PCI Code
 * and ID Assignment Specification). Each capability list is walked to its end before anything is
 * decoded from it, and a list that is broken gives nothing: where lspci prints
 * {@code <chain looped>}, {@code <chain broken>} or {@code <access denied>} and then stops, fabricd
 * decodes none of that list's registers ({@link Walk.Outcome}). The standard and the extended list
 * are judged apart: one can be broken while the other is whole.
 *
 * <p>A walk is {@code MALFORMED} when a pointer leads into the header (below 0x40) or, in the
 * extended list, into the first 256 bytes; when it comes back to a capability it met (a loop of any
 * length); when a capability ID is out of range (standard 0x16 to 0xff, extended above
 * {@link #EXT_CAP_ID_MAX}); when a capability fabricd decodes appears twice, runs past the end of its
 * space or holds another capability's header; when a size fabricd decodes has a reserved encoding; or
 * when there are more bytes than a config space holds. It is {@code CUT} when it needs bytes past those
 * read. A function whose Vendor and Device ID read all ones is {@code GONE}.
 */
public final class ConfigSpace {
    static final int CAP_ID_EXP = 0x10;
    static final int EXT_CAP_ID_ACS = 0x000d;
    /** The highest standard capability ID assigned (0x15, Flattening Portal Bridge; Linux's PCI_CAP_ID_MAX). */
    static final int CAP_ID_MAX = 0x15;
    /**
     * The highest extended capability ID taken as real: the PCI-SIG had assigned up to 0x0031
     * (Physical Layer 64.0 GT/s) by PCIe 6.0 and assigns them in order, so IDs up to 0x003f are left
     * to the next revisions rather than called garbage.
     */
    static final int EXT_CAP_ID_MAX = 0x003f;
    static final int CONVENTIONAL = 0x100;
    static final int EXTENDED = 0x1000;
    private static final int HEADER_END = 0x40;
    private static final int STATUS = 0x06;
    private static final int STATUS_CAP_LIST = 0x10;
    private static final int HEADER_TYPE = 0x0e;
    private static final int CAPABILITY_LIST = 0x34;
    private static final int CARDBUS_CAPABILITY_LIST = 0x14;
    private static final int EXP_FLAGS = 2;
    private static final int EXP_DEVCAP = 4;
    private static final int EXP_DEVCTL = 8;
    /** A version 1 PCI Express capability holds at least the header, the flags and the device registers. */
    private static final int EXP_SIZE_V1 = 0x0c;
    /** A version 2 one is 0x3c bytes (Linux's PCI_CAP_EXP_SIZEOF). */
    private static final int EXP_SIZE_V2 = 0x3c;
    private static final int ACS_SIZE = 8;
    private static final int DEVCTL_RELAXED_ORDERING = 1 << 4;

    private ConfigSpace() {
    }

    /** Where a walk ended, and the offset of the one capability fabricd decodes from it (-1: not met). */
    private record Found(Walk walk, int at) {
        static Found whole(int at) {
            return new Found(Walk.WHOLE, at);
        }

        static Found cut(String format, Object... args) {
            return new Found(new Walk(Outcome.CUT, String.format(Locale.ROOT, format, args)), -1);
        }

        static Found malformed(String format, Object... args) {
            return new Found(new Walk(Outcome.MALFORMED, String.format(Locale.ROOT, format, args)), -1);
        }
    }

    /** The config of {@code address} from {@code b}, the bytes its {@code config} file returned. */
    public static PcieConfig decode(String address, byte[] b) {
        if (b.length > EXTENDED) {
            Walk w = new Walk(Outcome.MALFORMED, b.length + " bytes: more than the 4096 a config space holds");
            return new PcieConfig(address, b.length, null, null, null, null, null, w, w);
        }
        if (b.length >= 4 && u32(b, 0) == 0xffffffffL) {
            // a function that fell off the bus (or whose link went down) answers every config read
            // with all ones: nothing in it is a register value
            Walk w = new Walk(Outcome.GONE, "its Vendor and Device ID read all ones");
            return new PcieConfig(address, b.length, null, null, null, null, null, w, w);
        }
        Found exp = expressCapability(b);
        Found acs = acsCapability(b);
        Integer mps = null;
        Integer mpss = null;
        Integer mrrs = null;
        Boolean ro = null;
        if (exp.at() >= 0) {
            long devcap = u32(b, exp.at() + EXP_DEVCAP);
            int devctl = u16(b, exp.at() + EXP_DEVCTL);
            mpss = size((int) (devcap & 0x7));
            mps = size((devctl >> 5) & 0x7);
            mrrs = size((devctl >> 12) & 0x7);
            ro = (devctl & DEVCTL_RELAXED_ORDERING) != 0;
        }
        PcieConfig.Acs acsRegs = acs.at() >= 0 ? new PcieConfig.Acs(u16(b, acs.at() + 4), u16(b, acs.at() + 6)) : null;
        return new PcieConfig(address, b.length, mps, mpss, mrrs, ro, acsRegs, exp.walk(), acs.walk());
    }

    /** 128 << v bytes for the encodings 0..5 (6 and 7 are reserved: see {@link #reserved}). */
    private static Integer size(int v) {
        return 128 << v;
    }

    /** The standard list walked whole, and the PCI Express capability in it checked whole. */
    private static Found expressCapability(byte[] b) {
        Found list = walkStandard(b, CAP_ID_EXP);
        int at = list.at();
        if (at < 0) {
            return list;
        }
        if (at + EXP_FLAGS + 2 > b.length) {
            return Found.cut("the PCI Express capability at 0x%02x lies past the %d bytes read", at, b.length);
        }
        int version = u16(b, at + EXP_FLAGS) & 0xf;
        if (version == 0) {
            return Found.malformed("the PCI Express capability at 0x%02x has version 0", at);
        }
        int size = version == 1 ? EXP_SIZE_V1 : EXP_SIZE_V2;
        if (at + size > CONVENTIONAL) {
            return Found.malformed("the PCI Express capability at 0x%02x (version %d, %d bytes) runs past the 256-byte "
                    + "conventional space", at, version, size);
        }
        int inside = insideOf(b, at, size);
        if (inside >= 0) {
            return Found.malformed("the capability at 0x%02x lies inside the PCI Express capability at 0x%02x (%d bytes)", inside, at, size);
        }
        if (at + size > b.length) {
            return Found.cut("the PCI Express capability at 0x%02x ends past the %d bytes read", at, b.length);
        }
        String reserved = reserved(u32(b, at + EXP_DEVCAP), u16(b, at + EXP_DEVCTL));
        if (reserved != null) {
            return Found.malformed("the PCI Express capability at 0x%02x: %s", at, reserved);
        }
        return list;
    }

    /** Which size field holds a reserved encoding (6 or 7), in words; null when none. */
    private static String reserved(long devcap, int devctl) {
        if ((devcap & 0x7) > 5) {
            return "Device Capabilities' Max_Payload_Size Supported holds the reserved value " + (devcap & 0x7);
        }
        if (((devctl >> 5) & 0x7) > 5) {
            return "Device Control's Max_Payload_Size holds the reserved value " + ((devctl >> 5) & 0x7);
        }
        if (((devctl >> 12) & 0x7) > 5) {
            return "Device Control's Max_Read_Request_Size holds the reserved value " + ((devctl >> 12) & 0x7);
        }
        return null;
    }

    /** The first capability header of the standard list at an offset inside (at, at + size), or -1. */
    private static int insideOf(byte[] b, int at, int size) {
        for (int pos : standardOffsets(b)) {
            if (pos > at && pos < at + size) {
                return pos;
            }
        }
        return -1;
    }

    /** The offsets of the standard list, as far as it goes (used once it is known whole). */
    private static List<Integer> standardOffsets(byte[] b) {
        List<Integer> out = new ArrayList<>();
        int pos = b[listPointer(b)] & 0xfc;
        while (pos != 0 && out.size() < 48) {
            out.add(pos);
            pos = b[pos + 1] & 0xfc;
        }
        return out;
    }

    /** Where the standard list's first pointer is: 0x34, 0x14 for a CardBus bridge; -1 for a header type that has none. */
    private static int listPointer(byte[] b) {
        int type = b[HEADER_TYPE] & 0x7f;
        return type == 0 || type == 1 ? CAPABILITY_LIST : type == 2 ? CARDBUS_CAPABILITY_LIST : -1;
    }

    /**
     * Walks the standard capability list to its end: whole, with the offset of capability
     * {@code id} (-1 when the list has none), or cut or malformed.
     */
    static Found walkStandard(byte[] b, int id) {
        if (b.length < STATUS + 2) {
            return Found.cut("the status register (0x06) lies past the %d bytes read", b.length);
        }
        if ((u16(b, STATUS) & STATUS_CAP_LIST) == 0) {
            return Found.whole(-1); // no capability list at all
        }
        if (b.length <= HEADER_TYPE) {
            return Found.cut("the header type (0x0e) lies past the %d bytes read", b.length);
        }
        int first = listPointer(b);
        if (first < 0) {
            return Found.malformed("header type %d is none of 0, 1 and 2: where its capability list starts is not defined",
                    b[HEADER_TYPE] & 0x7f);
        }
        if (first >= b.length) {
            return Found.cut("the capability pointer (0x%02x) lies past the %d bytes read", first, b.length);
        }
        boolean[] seen = new boolean[CONVENTIONAL];
        int found = -1;
        String from = String.format(Locale.ROOT, "the capability pointer (0x%02x)", first);
        int pos = b[first] & 0xfc;
        while (pos != 0) {
            if (pos < HEADER_END) {
                return Found.malformed("%s points to 0x%02x, inside the header", from, pos);
            }
            if (seen[pos]) {
                return Found.malformed("the list loops: %s points back to 0x%02x", from, pos);
            }
            seen[pos] = true;
            if (pos + 2 > b.length) {
                return Found.cut("the capability at 0x%02x lies past the %d bytes read", pos, b.length);
            }
            int capId = b[pos] & 0xff;
            if (capId > CAP_ID_MAX) {
                return Found.malformed("capability ID 0x%02x at 0x%02x is out of range (0x00 to 0x%02x)", capId, pos, CAP_ID_MAX);
            }
            if (capId == id) {
                if (found >= 0) {
                    return Found.malformed("two capabilities of ID 0x%02x, at 0x%02x and 0x%02x", id, found, pos);
                }
                found = pos;
            }
            from = String.format(Locale.ROOT, "the capability at 0x%02x", pos);
            pos = b[pos + 1] & 0xfc;
        }
        return Found.whole(found);
    }

    /** The extended list walked whole, and the ACS capability in it checked whole. */
    private static Found acsCapability(byte[] b) {
        Found list = walkExtended(b, EXT_CAP_ID_ACS);
        int at = list.at();
        if (at < 0) {
            return list;
        }
        if (at + ACS_SIZE > EXTENDED) {
            return Found.malformed("the ACS capability at 0x%03x (%d bytes) runs past the 4096-byte config space", at, ACS_SIZE);
        }
        List<Integer> offsets = extendedOffsets(b);
        for (int pos : offsets) {
            if (pos > at && pos < at + ACS_SIZE) {
                return Found.malformed("the capability at 0x%03x lies inside the ACS capability at 0x%03x (%d bytes)", pos, at, ACS_SIZE);
            }
        }
        if (at + ACS_SIZE > b.length) {
            return Found.cut("the ACS capability at 0x%03x ends past the %d bytes read", at, b.length);
        }
        return list;
    }

    /** The offsets of the extended list, as far as it goes (used once it is known whole). */
    private static List<Integer> extendedOffsets(byte[] b) {
        List<Integer> out = new ArrayList<>();
        int pos = CONVENTIONAL;
        while (pos != 0 && pos + 4 <= b.length && out.size() < (EXTENDED - CONVENTIONAL) / 4) {
            long header = u32(b, pos);
            if (header == 0) {
                break;
            }
            out.add(pos);
            pos = (int) (header >>> 20) & 0xffc;
        }
        return out;
    }

    /**
     * Walks the extended capability list (from 0x100) to its end: whole, with the offset of
     * capability {@code id} (-1 when the list has none), or cut (the extended space was not read,
     * or reads all ones: the platform gives no extended config access) or malformed.
     */
    static Found walkExtended(byte[] b, int id) {
        if (b.length < CONVENTIONAL + 4) {
            return Found.cut("the extended space (from 0x100) lies past the %d bytes read", b.length);
        }
        long firstHeader = u32(b, CONVENTIONAL);
        if (firstHeader == 0) {
            return Found.whole(-1); // no extended capability
        }
        if (firstHeader == 0xffffffffL) {
            return Found.cut("the extended space reads all ones: the platform gives no extended config access");
        }
        boolean[] seen = new boolean[EXTENDED / 4];
        int found = -1;
        String from = null;
        int pos = CONVENTIONAL;
        while (pos != 0) {
            if (pos < CONVENTIONAL) {
                return Found.malformed("%s points to 0x%03x, inside the first 256 bytes", from, pos);
            }
            if (seen[pos / 4]) {
                return Found.malformed("the extended list loops: %s points back to 0x%03x", from, pos);
            }
            seen[pos / 4] = true;
            if (pos + 4 > b.length) {
                return Found.cut("the extended capability at 0x%03x lies past the %d bytes read", pos, b.length);
            }
            long header = u32(b, pos);
            if (header == 0) {
                break; // as lspci and the kernel: an empty header ends the list
            }
            if (header == 0xffffffffL) {
                return Found.malformed("%s points to 0x%03x, which reads all ones", from, pos);
            }
            int capId = (int) (header & 0xffff);
            if (capId > EXT_CAP_ID_MAX) {
                return Found.malformed("extended capability ID 0x%04x at 0x%03x is out of range (0x0000 to 0x%04x)", capId, pos,
                        EXT_CAP_ID_MAX);
            }
            if (capId == id) {
                if (found >= 0) {
                    return Found.malformed("two extended capabilities of ID 0x%04x, at 0x%03x and 0x%03x", id, found, pos);
                }
                found = pos;
            }
            from = String.format(Locale.ROOT, "the extended capability at 0x%03x", pos);
            pos = (int) (header >>> 20) & 0xffc;
        }
        return Found.whole(found);
    }

    private static int u16(byte[] b, int at) {
        return (b[at] & 0xff) | (b[at + 1] & 0xff) << 8;
    }

    private static long u32(byte[] b, int at) {
        return (u16(b, at) | (long) u16(b, at + 2) << 16) & 0xffffffffL;
    }
}
