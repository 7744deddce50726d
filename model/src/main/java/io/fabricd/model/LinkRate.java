package io.fabricd.model;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A port's {@code rate}: "400 Gb/sec (4X NDR)" (linux drivers/infiniband/core/sysfs.c rate_show;
 * docs/spec/host-facts.md §1.4). Only ".5" decimals exist ("2.5 Gb/sec (1X SDR)").
 *
 * @param bytesPerSecond signalling rate in bytes/s (Gb/s × 10^9 / 8, as node_exporter computes it)
 * @param width          lanes (1, 2, 4, 8, 12)
 * @param speed          lane speed name (SDR ... XDR); empty when the kernel printed none
 */
public record LinkRate(String raw, long bytesPerSecond, int width, String speed) {
    private static final Pattern RATE = Pattern.compile("^(\\d+(?:\\.\\d+)?) Gb/sec(?: \\((\\d+)X ?([A-Za-z0-9]*)\\))?$");

    /** Parses the sysfs text; null when it is not a rate. */
    public static LinkRate parse(String text) {
        String t = text.strip();
        Matcher m = RATE.matcher(t);
        if (!m.matches()) {
            return null;
        }
        double gbps = Double.parseDouble(m.group(1));
        long bps = Math.round(gbps * 1e9 / 8);
        int width = m.group(2) == null ? 0 : Integer.parseInt(m.group(2));
        String speed = m.group(3) == null ? "" : m.group(3);
        return new LinkRate(t, bps, width, speed);
    }
}
