package io.fabricd.agent.fleet;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.CountDownLatch;

/**
 * The fleet emulator as a process of its own, for bench/preflight-emulated.sh: serves a plan of
 * {@code --nodes N} healthy nodes ({@code emu0001}...) with the faults given, writes the node list
 * for {@code fabricd preflight --nodes @OUT/nodes.txt}, the key and the plan (OUT/plan.tsv), says
 * when it serves on stdout, and serves until it is stopped (SIGTERM).
 *
 * <pre>
 * java -cp agent/target/fabricd.jar:agent/target/test-classes io.fabricd.agent.fleet.FleetMain \
 *   --fixtures collectors/src/test/fixtures --out DIR --nodes 1000 [--per-leaf 32] \
 *   [--fault emu0007=critical] [--fault emu0042=lossy:0.3] [--fault emu0099=down] [--fault emu0100=silent]
 * </pre>
 */
public final class FleetMain {
    private FleetMain() {
    }

    public static void main(String[] args) throws Exception {
        try {
            serve(args);
        } catch (IllegalArgumentException e) {
            System.err.println("FleetMain: " + e.getMessage());
            System.exit(2);
        }
    }

    private static void serve(String[] args) throws Exception {
        Path fixtures = null;
        Path out = null;
        int count = 0;
        int perLeaf = 32;
        StringBuilder faults = new StringBuilder();
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--fixtures" -> fixtures = Path.of(args[i + 1]);
                case "--out" -> out = Path.of(args[i + 1]);
                case "--nodes" -> count = number(args[i], args[i + 1]);
                case "--per-leaf" -> perLeaf = number(args[i], args[i + 1]);
                case "--fault" -> faults.append(args[i + 1]).append(',');
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (fixtures == null || out == null || count < 1 || args.length % 2 != 0) {
            throw new IllegalArgumentException("usage: FleetMain --fixtures DIR --out DIR --nodes N [--per-leaf 32] "
                    + "[--fault NODE=critical|lossy:SHARE|down|silent]...");
        }
        FleetPlan plan = FleetPlan.healthy("emu", count, perLeaf);
        for (String f : faults.toString().split(",")) {
            if (!f.isEmpty()) {
                plan = fault(plan, f);
            }
        }
        Files.createDirectories(out);
        Path key = out.resolve("key");
        if (!Files.exists(key)) {
            byte[] b = new byte[32];
            new SecureRandom().nextBytes(b);
            Files.createFile(key, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(key, HexFormat.of().formatHex(b) + "\n");
        }
        long t0 = System.nanoTime();
        FleetEmulator fleet = FleetEmulator.start(plan, fixtures, key);
        double took = (System.nanoTime() - t0) / 1e9;
        Runtime.getRuntime().addShutdownHook(new Thread(fleet::close));
        fleet.writeNodes(out.resolve("nodes.txt"));
        writePlan(plan, out.resolve("plan.tsv"));
        System.gc();
        Runtime rt = Runtime.getRuntime();
        System.out.printf("fleet: %d nodes serving in %.1f s (pid %d, %d threads, heap %d MiB used after GC)%n", count, took,
                ProcessHandle.current().pid(), ManagementFactory.getThreadMXBean().getThreadCount(),
                (rt.totalMemory() - rt.freeMemory()) >> 20);
        System.out.flush();
        new CountDownLatch(1).await();
    }

    private static int number(String option, String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " " + value + " is not a number", e);
        }
    }

    /** {@code plan} with NODE=critical|lossy:SHARE|down|silent. */
    static FleetPlan fault(FleetPlan plan, String spec) {
        String[] nv = spec.split("=", 2);
        String node = nv[0];
        String what = nv.length < 2 ? "" : nv[1];
        if (what.equals("critical")) {
            return plan.with(node, FleetPlan.CRITICAL, FleetPlan.NONE);
        }
        FleetPlan.Fault f = what.startsWith("lossy:") ? new FleetPlan.Fault.LossyUdp(share(spec, what.substring(6)))
                : what.equals("down") ? new FleetPlan.Fault.Down() : what.equals("silent") ? new FleetPlan.Fault.Silent() : null;
        if (f == null) {
            throw new IllegalArgumentException("--fault " + spec + ": not NODE=critical|lossy:SHARE|down|silent");
        }
        return plan.with(node, plan.node(node).fixture(), f);
    }

    private static double share(String spec, String text) {
        try {
            return Double.parseDouble(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--fault " + spec + ": " + text + " is not a share like 0.3", e);
        }
    }

    private static void writePlan(FleetPlan plan, Path file) throws IOException {
        StringBuilder b = new StringBuilder("node\tfixture\tfault\tleaf\tspine\n");
        for (FleetPlan.Node n : plan.nodes()) {
            b.append(n.name()).append('\t').append(n.fixture()).append('\t').append(n.fault()).append('\t')
                    .append(n.placement().at(0)).append('\t').append(n.placement().at(1)).append('\n');
        }
        Files.writeString(file, b);
    }
}
