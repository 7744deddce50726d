package io.fabricd.agent.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabricd.agent.config.AgentConfig;
import io.fabricd.agent.state.InventoryStore;
import io.fabricd.diagnosis.inventory.Inventory;
import io.fabricd.diagnosis.run.Diagnosis;
import io.fabricd.model.HostModel;
import io.fabricd.model.finding.Finding;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.AccessDeniedException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code fabricd inventory}: the host's expected hardware (docs/alerts.md). */
@Command(name = "inventory", mixinStandardHelpOptions = true,
        description = "Show or accept the host's expected inventory: the RDMA devices and ports, netdevs and GPU/NIC PCI functions "
                + "whose absence is a hardware_missing finding, and which ports must be up.",
        subcommands = {InventoryCommand.Accept.class, InventoryCommand.Show.class})
public final class InventoryCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw UsageErrors.commandRequired(spec);
    }

    static Path requireStateDir(HostOptions host, AgentConfig cfg) {
        Path dir = host.stateDir(cfg);
        if (dir == null) {
            throw new IllegalArgumentException("--root and --demo have no state folder of their own: give --state-dir DIR");
        }
        return dir;
    }

    /** {@code fabricd inventory accept}: the host as it is now becomes what it is expected to be. */
    @Command(name = "accept", mixinStandardHelpOptions = true,
            description = "Collect the host once and store it as its expected inventory (after an intended change: a card "
                    + "removed, a port taken out of service). The running agent picks it up at its next collection.")
    static final class Accept implements Callable<Integer> {
        @Mixin
        HostOptions host;

        @Override
        public Integer call() {
            AgentConfig cfg = host.config();
            Path dir = requireStateDir(host, cfg);
            PrintWriter out = host.out();
            InventoryStore store = InventoryStore.forCommand(dir);
            HostModel m = host.collectOnce(cfg, host.err());
            Inventory inv = Inventory.of(m, Instant.now().truncatedTo(ChronoUnit.SECONDS), Inventory.ACCEPTED);
            PrintWriter err = host.err();
            Inventory before;
            try {
                // under the folder's lock: a running agent neither reads half of it nor writes over it
                before = store.locked(() -> {
                    Inventory was = null;
                    try {
                        was = store.load().orElse(null);
                    } catch (InventoryStore.AccessDenied e) {
                        throw HostOptions.refused(e, "fabricd inventory accept");
                    } catch (IllegalArgumentException e) {
                        // kept, not overwritten: someone may want to read what it said
                        err.println("fabricd: " + e.getMessage() + "; moved to " + store.moveAside());
                    }
                    store.save(inv);
                    return was;
                });
            } catch (InventoryStore.Busy e) {
                throw new IllegalArgumentException("cannot write " + store.file() + ": the lock " + e.getMessage() + ": try again; if "
                        + "this lasts, find the process that holds it: fuser -v " + dir.resolve(".lock"));
            } catch (IOException e) {
                // the agent reads this folder only: the advice is about this process, never another folder
                String advice = e instanceof AccessDeniedException ? Privilege.advice("fabricd inventory accept", Privilege.Access.WRITE) : null;
                throw new IllegalArgumentException("cannot write " + store.file() + ": " + InventoryStore.reason(e)
                        + (advice == null ? "" : "; " + advice));
            } catch (IllegalArgumentException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalArgumentException("cannot write " + store.file() + ": " + e);
            }
            if (before != null) {
                missing(m, before, cfg).forEach(f -> out.println("no longer expected: " + f.summary()));
            }
            out.println("accepted " + store.file() + ": " + describe(inv));
            out.flush();
            return 0;
        }
    }

    /** {@code fabricd inventory show}: the stored inventory and what of it is missing now. */
    @Command(name = "show", mixinStandardHelpOptions = true,
            description = "Print the stored inventory and, with a collection of the host, what of it is gone now.")
    static final class Show implements Callable<Integer> {
        enum Format { text, json }

        @Mixin
        HostOptions host;

        @Option(names = "--format", defaultValue = "text", description = "text or json (default: ${DEFAULT-VALUE}).")
        Format format;

        @Override
        public Integer call() {
            AgentConfig cfg = host.config();
            Path dir = requireStateDir(host, cfg);
            InventoryStore store = InventoryStore.forCommand(dir);
            Inventory stored;
            try {
                stored = store.load().orElseThrow(() -> new IllegalArgumentException("no inventory in " + dir
                        + ": the agent learns one at its first collection, or run `fabricd inventory accept`"));
            } catch (InventoryStore.AccessDenied e) {
                throw HostOptions.refused(e, "fabricd inventory show");
            }
            Inventory inv = stored.selected(cfg.collectorConfig()::deviceSelected);
            HostModel m = host.collectOnce(cfg, host.err());
            List<Finding> gone = missing(m, inv, cfg);
            PrintWriter out = host.out();
            if (format == Format.json) {
                ObjectNode root = JSON.createObjectNode();
                root.put("file", store.file().toString());
                root.set("inventory", JSON.valueToTree(inv));
                root.set("missing", JSON.valueToTree(gone));
                out.println(root.toPrettyString());
                out.flush();
                return 0;
            }
            out.println(store.file() + ": " + describe(inv));
            for (Inventory.Device d : inv.devices()) {
                for (Inventory.Port p : d.ports()) {
                    out.println("  " + d.name() + " port " + p.port() + (p.netdev() == null ? "" : " (" + p.netdev() + ")") + ": "
                            + (p.expectedUp() ? "expected up" + (p.rate() == null ? "" : " at " + p.rate()) : "not expected up (never seen up)"));
                }
            }
            for (Inventory.Pci f : inv.pci()) {
                out.println("  " + f.kind() + " " + f.address() + (f.width() == null ? "" : " x" + f.width())
                        + (f.speed() == null ? "" : String.format(Locale.ROOT, " %.1f GT/s", f.speed() / 1e9)));
            }
            out.println(gone.isEmpty() ? "everything expected is present" : "missing now:");
            gone.forEach(f -> out.println("  " + f.severity().id() + ": " + f.summary()));
            out.flush();
            return 0;
        }
    }

    /** What of {@code inv} the host {@code m} does not have: the hardware_missing findings. */
    static List<Finding> missing(HostModel m, Inventory inv, AgentConfig cfg) {
        return Diagnosis.run(m, null, inv, cfg.diagnosis()).findings().stream().filter(f -> f.check().equals("hardware_missing")).toList();
    }

    static String describe(Inventory inv) {
        long ports = inv.devices().stream().mapToLong(d -> d.ports().size()).sum();
        long up = inv.devices().stream().flatMap(d -> d.ports().stream()).filter(Inventory.Port::expectedUp).count();
        return inv.devices().size() + " RDMA devices, " + ports + " ports (" + up + " expected up), " + inv.pci().size()
                + " GPU/NIC PCI functions (" + inv.origin() + " " + inv.acceptedAt() + ")";
    }

    private static final ObjectMapper JSON = new ObjectMapper();
}
