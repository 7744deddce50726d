package io.fabricd.collectors.topology;

import io.fabricd.collectors.CollectContext;
import io.fabricd.collectors.Slices;
import io.fabricd.collectors.Stage;
import io.fabricd.model.HostFacts;
import java.util.Map;
import java.util.TreeMap;

/**
 * Kernel release, memory and CPUs per NUMA node: from OSHI on the live host; from the snapshot
 * manifest's {@code host} (what OSHI said when the snapshot was taken) in a snapshot; and from
 * proc/ and sys/ files in a hand-made fixture, or when OSHI fails.
 */
public final class HostFactsCollector extends Stage.Declared<HostFacts> {
    private final OshiFacts oshi = new OshiFacts();

    public HostFactsCollector() {
        super("host", HostFacts.class);
    }

    @Override
    public HostFacts collect(CollectContext ctx, Slices in) {
        if (!ctx.source().isSnapshot()) {
            try {
                return oshi.read();
            } catch (RuntimeException | LinkageError e) {
                ctx.error("oshi", "host facts unavailable: " + e); // fall back to the files
            }
        }
        var manifest = ctx.source().manifest();
        if (manifest.isPresent() && manifest.get().host() != null) {
            var h = manifest.get().host();
            return new HostFacts(manifest.get().kernel(), h.memoryBytes(),
                    new TreeMap<Integer, Integer>(h.numaCpus() == null ? Map.of() : h.numaCpus()), h.bootTime());
        }
        return fromFiles(ctx); // a hand-made fixture's files
    }

    private static HostFacts fromFiles(CollectContext ctx) {
        String kernel = ctx.optional("proc/sys/kernel/osrelease").map(String::strip)
                .orElse(ctx.source().manifest().map(m -> m.kernel()).orElse(null));
        Long mem = ctx.optional("proc/meminfo").flatMap(t -> t.lines().filter(l -> l.startsWith("MemTotal:")).findFirst())
                .map(l -> {
                    String[] p = l.split("\\s+");
                    try {
                        return Long.parseLong(p[1]) * 1024;
                    } catch (RuntimeException e) {
                        ctx.error("proc/meminfo", "MemTotal not a number");
                        return null;
                    }
                }).orElse(null);
        TreeMap<Integer, Integer> numa = new TreeMap<>();
        for (String n : ctx.listOptional("sys/devices/system/node")) {
            if (!n.matches("node\\d+")) {
                continue;
            }
            int id = Integer.parseInt(n.substring(4));
            ctx.optional("sys/devices/system/node/" + n + "/cpulist").ifPresent(cl -> {
                Integer c = countCpus(cl);
                if (c == null) {
                    ctx.error("sys/devices/system/node/" + n + "/cpulist", "not a cpulist: '" + cl.strip() + "'");
                } else {
                    numa.put(id, c);
                }
            });
        }
        Long boot = ctx.optional("proc/stat").flatMap(t -> t.lines().filter(l -> l.startsWith("btime ")).findFirst())
                .map(l -> {
                    try {
                        return Long.parseLong(l.substring(6).strip());
                    } catch (NumberFormatException e) {
                        ctx.error("proc/stat", "btime not a number");
                        return null;
                    }
                }).orElse(null);
        return new HostFacts(kernel, mem, numa, boot);
    }

    /** "0-27,112-139" -> 56; "" -> 0; garbage -> null. */
    public static Integer countCpus(String cpulist) {
        String t = cpulist.strip();
        if (t.isEmpty()) {
            return 0;
        }
        int count = 0;
        for (String part : t.split(",")) {
            try {
                int dash = part.indexOf('-');
                if (dash < 0) {
                    Integer.parseInt(part.strip());
                    count++;
                } else {
                    int a = Integer.parseInt(part.substring(0, dash).strip());
                    int b = Integer.parseInt(part.substring(dash + 1).strip());
                    if (b < a) {
                        return null;
                    }
                    count += b - a + 1;
                }
            } catch (NumberFormatException e) {
                return null;
            }
        }
        return count;
    }
}
