package io.fabricd.model;

/**
 * A populated GID table entry.
 *
 * @param gid    as sysfs prints it (8 groups of 4 hex digits)
 * @param type   "IB/RoCE v1" or "RoCE v2"; null when unreadable
 * @param netdev the netdev owning the GID (RoCE); null for IB GIDs
 */
public record Gid(int index, String gid, String type, String netdev) {

    /** True for an IPv4-mapped GID (::ffff:a.b.c.d). */
    public boolean ipv4Mapped() {
        return gid.startsWith("0000:0000:0000:0000:0000:ffff:");
    }
}
