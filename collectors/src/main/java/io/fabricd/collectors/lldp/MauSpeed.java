package io.fabricd.collectors.lldp;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The speed an 802.3 MAU type stands for, from lldpd's names of them (src/lib/atoms/port.c:
 * "10BaseT", "1000BaseXFD", "10GigBaseR", "25GbaseCR", "100GbaseCR4", "400GbaseR", "2p5GigT"). Names
 * that are no one speed (the asymmetric "10G1GbasePRXD1", "AUI", "10PassTS") give none, and so do
 * numbers of more than six digits (no link runs at a million Gb/s; a longer one would overflow).
 */
final class MauSpeed {
    private static final Pattern P = Pattern.compile("^(\\d{1,6})(?:p(\\d))?(G|Gig)?(?:[Bb]ase|T)");

    private MauSpeed() {
    }

    /** Mb/s; null when {@code mau} names no single speed. */
    static Long mbps(String mau) {
        if (mau == null) {
            return null;
        }
        Matcher m = P.matcher(mau);
        if (!m.find()) {
            return null;
        }
        long whole = Long.parseLong(m.group(1));
        boolean giga = m.group(3) != null;
        if (m.group(2) != null) {
            return giga ? whole * 1000 + Long.parseLong(m.group(2)) * 100 : null;
        }
        return giga ? whole * 1000 : whole;
    }
}
