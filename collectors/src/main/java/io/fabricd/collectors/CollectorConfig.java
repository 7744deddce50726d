package io.fabricd.collectors;

import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What the collectors are told.
 *
 * @param includeDevices RDMA device name globs to read (default: all)
 * @param excludeDevices RDMA device name globs never to read, even when included; some
 *                       firmware-restricted PFs flood the kernel log when their counters are read
 *                       (node_exporter#3434)
 * @param disabledCollectors stages not run at all (by name: host, rdma, netdev, ethtool, dcb, verbs,
 *                       qp, topology, gpudirect, pcie, iommu); their slice is absent, as on a host
 *                       without it, the stages that need it run without it, and the checks that
 *                       need it say nothing
 */
public record CollectorConfig(List<String> includeDevices, List<String> excludeDevices, Set<String> disabledCollectors) {

    public static final CollectorConfig DEFAULT = new CollectorConfig(List.of("*"), List.of(), Set.of());

    public CollectorConfig {
        includeDevices = includeDevices == null || includeDevices.isEmpty() ? List.of("*") : List.copyOf(includeDevices);
        excludeDevices = excludeDevices == null ? List.of() : List.copyOf(excludeDevices);
        disabledCollectors = disabledCollectors == null ? Set.of() : Set.copyOf(disabledCollectors);
    }

    /** True unless the collector is disabled. */
    public boolean runs(String collector) {
        return !disabledCollectors.contains(collector);
    }

    /** True when the device is to be read. */
    public boolean deviceSelected(String name) {
        return includeDevices.stream().anyMatch(g -> glob(g).matcher(name).matches())
                && excludeDevices.stream().noneMatch(g -> glob(g).matcher(name).matches());
    }

    /** Shell-style glob: {@code *}, {@code ?}, {@code [abc]}, {@code [a-z]}, {@code [!x]}. */
    static Pattern glob(String glob) {
        StringBuilder re = new StringBuilder();
        boolean inClass = false;
        for (int i = 0; i < glob.length(); i++) {
            char c = glob.charAt(i);
            if (inClass) {
                if (c == ']') {
                    inClass = false;
                    re.append(']');
                } else if (c == '\\') {
                    re.append("\\\\");
                } else {
                    re.append(c);
                }
                continue;
            }
            switch (c) {
                case '*' -> re.append(".*");
                case '?' -> re.append('.');
                case '[' -> {
                    inClass = true;
                    re.append('[');
                    if (i + 1 < glob.length() && glob.charAt(i + 1) == '!') {
                        re.append('^');
                        i++;
                    }
                }
                default -> re.append(Pattern.quote(String.valueOf(c)));
            }
        }
        if (inClass) {
            throw new IllegalArgumentException("unclosed '[' in device glob '" + glob + "'");
        }
        return Pattern.compile(re.toString());
    }

    /** Checks every glob, so a typo is reported at start-up rather than silently matching nothing. */
    public void validateGlobs() {
        includeDevices.forEach(CollectorConfig::glob);
        excludeDevices.forEach(CollectorConfig::glob);
    }
}
