package io.fabricd.diagnosis.inventory;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.fabricd.model.HostModel;
import io.fabricd.model.PciFunction;
import io.fabricd.model.RdmaDevice;
import io.fabricd.model.RdmaPort;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The hardware a host is expected to have: its RDMA devices and ports (with whether each port was
 * seen up, and its best rate then), the netdev of each port, and its GPU and NIC PCI functions with
 * their best link. Learned from the first collection and grown by every later one (a device that
 * appears, a port that comes up); nothing leaves it but an accept ({@code fabricd inventory accept}),
 * so a device that vanishes stays expected until someone says the change was intended.
 *
 * @param origin     "learned" (the agent's first collection and what it saw since) or "accepted"
 *                   (an operator accepted the host as it was)
 * @param acceptedAt when it was learned first or accepted (ISO-8601)
 * @param updatedAt  when a collection last added to it (ISO-8601)
 */
@JsonPropertyOrder({"format", "host", "origin", "accepted_at", "updated_at", "devices", "pci"})
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Inventory(@JsonProperty("format") int format,
                        @JsonProperty("host") String host,
                        @JsonProperty("origin") String origin,
                        @JsonProperty("accepted_at") String acceptedAt,
                        @JsonProperty("updated_at") String updatedAt,
                        @JsonProperty("devices") List<Device> devices,
                        @JsonProperty("pci") List<Pci> pci) {
    public static final int FORMAT = 1;
    public static final String LEARNED = "learned";
    public static final String ACCEPTED = "accepted";
    /** The PCI functions the inventory keeps: the ones a job uses (bridges come and go with them). */
    static final Set<String> KINDS = Set.of("nic", "gpu", "nvswitch");

    public Inventory {
        devices = devices == null ? List.of() : devices.stream().sorted(Comparator.comparing(Device::name, Inventory::natural)).toList();
        pci = pci == null ? List.of() : pci.stream().sorted(Comparator.comparing(Pci::address)).toList();
        if (origin == null) {
            origin = LEARNED;
        }
    }

    /** An RDMA device: matched to the host's by node GUID where both have one, else by name. */
    @JsonPropertyOrder({"name", "node_guid", "pci", "ports"})
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Device(@JsonProperty("name") String name,
                         @JsonProperty("node_guid") String nodeGuid,
                         @JsonProperty("pci") String pci,
                         @JsonProperty("ports") List<Port> ports) {
        public Device {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("a device without a name");
            }
            ports = ports == null ? List.of() : ports.stream().sorted(Comparator.comparingInt(Port::port)).toList();
        }

        public Optional<Port> port(int n) {
            return ports.stream().filter(p -> p.port() == n).findFirst();
        }
    }

    /**
     * A port: {@code expectedUp} once it was seen ACTIVE and LinkUp (then it must stay up), with the
     * best rate it had then; a port that was never up is expected to be there, not to be up.
     */
    @JsonPropertyOrder({"port", "link_layer", "netdev", "expected_up", "rate_bytes_per_second", "rate"})
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Port(@JsonProperty("port") int port,
                       @JsonProperty("link_layer") String linkLayer,
                       @JsonProperty("netdev") String netdev,
                       @JsonProperty("expected_up") boolean expectedUp,
                       @JsonProperty("rate_bytes_per_second") Long rateBytesPerSecond,
                       @JsonProperty("rate") String rate) {
    }

    /** A GPU, NVSwitch or NIC PCI function and the best link it was seen with. */
    @JsonPropertyOrder({"address", "kind", "width", "speed"})
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Pci(@JsonProperty("address") String address,
                      @JsonProperty("kind") String kind,
                      @JsonProperty("width") Integer width,
                      @JsonProperty("speed") Long speed) {
        public Pci {
            if (address == null || address.isBlank()) {
                throw new IllegalArgumentException("a PCI function without an address");
            }
        }
    }

    /** The host as one collection shows it: what an operator accepts, or the agent learns first. */
    public static Inventory of(HostModel m, Instant at, String origin) {
        List<Device> ds = new ArrayList<>();
        for (RdmaDevice d : m.devices()) {
            List<Port> ps = new ArrayList<>();
            for (RdmaPort p : d.ports()) {
                ps.add(port(p, null));
            }
            ds.add(new Device(d.name(), guid(d), d.pciAddress(), ps));
        }
        List<Pci> fs = new ArrayList<>();
        for (PciFunction f : m.pci()) {
            if (KINDS.contains(f.kind()) && !m.readsAllOnes(f.address())) {
                fs.add(new Pci(f.address(), f.kind(), f.width(), f.speed()));
            }
        }
        return new Inventory(FORMAT, m.hostname(), origin, at.toString(), at.toString(), ds, fs);
    }

    /**
     * This inventory grown by what {@code m} shows: devices, ports and functions it did not have,
     * ports that came up (and a better rate), functions with a better link. The same object when
     * nothing changed, so the caller writes it only on change.
     */
    public Inventory learn(HostModel m) {
        boolean changed = false;
        List<Device> ds = new ArrayList<>(devices);
        for (RdmaDevice d : m.devices()) {
            int i = indexOf(ds, d);
            if (i < 0) {
                List<Port> ps = d.ports().stream().map(p -> port(p, null)).toList();
                ds.add(new Device(d.name(), guid(d), d.pciAddress(), ps));
                changed = true;
                continue;
            }
            Device known = ds.get(i);
            List<Port> ps = new ArrayList<>(known.ports());
            boolean portsChanged = false;
            for (RdmaPort p : d.ports()) {
                Port was = known.port(p.port()).orElse(null);
                Port now = port(p, was);
                if (!now.equals(was)) {
                    if (was != null) {
                        ps.remove(was);
                    }
                    ps.add(now);
                    portsChanged = true;
                }
            }
            String name = d.name();
            String pciAddr = d.pciAddress() != null ? d.pciAddress() : known.pci();
            String g = guid(d) != null ? guid(d) : known.nodeGuid();
            if (portsChanged || !name.equals(known.name()) || !Objects.equals(pciAddr, known.pci()) || !Objects.equals(g, known.nodeGuid())) {
                ds.set(i, new Device(name, g, pciAddr, ps));
                changed = true;
            }
        }
        List<Pci> fs = new ArrayList<>(pci);
        for (PciFunction f : m.pci()) {
            if (!KINDS.contains(f.kind()) || m.readsAllOnes(f.address())) {
                continue;
            }
            Pci was = fs.stream().filter(x -> x.address().equals(f.address())).findFirst().orElse(null);
            Pci now = was == null ? new Pci(f.address(), f.kind(), f.width(), f.speed())
                    : new Pci(was.address(), was.kind(), max(was.width(), f.width()), max(was.speed(), f.speed()));
            if (!now.equals(was)) {
                if (was != null) {
                    fs.remove(was);
                }
                fs.add(now);
                changed = true;
            }
        }
        if (!changed) {
            return this;
        }
        return new Inventory(FORMAT, host, origin, acceptedAt, m.collectedAt().toString(), ds, fs);
    }

    /** The host's device this inventory device stands for: same node GUID where both have one, else the same name. */
    public Optional<RdmaDevice> match(HostModel m, Device d) {
        if (d.nodeGuid() != null) {
            Optional<RdmaDevice> byGuid = m.devices().stream().filter(x -> d.nodeGuid().equals(guid(x))).findFirst();
            if (byGuid.isPresent()) {
                return byGuid;
            }
        }
        return m.device(d.name()).filter(x -> d.nodeGuid() == null || guid(x) == null || d.nodeGuid().equals(guid(x)));
    }

    /** The inventory's entry for a port of the host, when it has one. */
    public Optional<Port> port(HostModel m, RdmaPort p) {
        for (Device d : devices) {
            Optional<RdmaDevice> x = match(m, d);
            if (x.isPresent() && x.get().name().equals(p.device())) {
                return d.port(p.port());
            }
        }
        return Optional.empty();
    }

    /**
     * This inventory without the devices the configuration does not collect ({@code rdma.include_devices},
     * {@code exclude_devices}): an inventory accepted under another configuration expects nothing
     * the agent was told not to read.
     */
    public Inventory selected(Predicate<String> deviceSelected) {
        List<Device> ds = devices.stream().filter(d -> deviceSelected.test(d.name())).toList();
        return ds.size() == devices.size() ? this : new Inventory(format, host, origin, acceptedAt, updatedAt, ds, pci);
    }

    /** mlx5_2 before mlx5_10: names compared with their numbers as numbers. */
    static int natural(String a, String b) {
        Matcher x = DIGITS.matcher(a);
        Matcher y = DIGITS.matcher(b);
        if (x.matches() && y.matches() && x.group(1).equals(y.group(1)) && x.group(2).length() < 10 && y.group(2).length() < 10) {
            return Long.compare(Long.parseLong(x.group(2)), Long.parseLong(y.group(2)));
        }
        return a.compareTo(b);
    }

    private static final Pattern DIGITS = Pattern.compile("(.*?)(\\d+)");

    /** An operator accepted a host without RDMA devices: none is expected. */
    public boolean expectsNoRdma() {
        return ACCEPTED.equals(origin) && devices.isEmpty();
    }

    private static Port port(RdmaPort p, Port was) {
        boolean up = p.up();
        Long rate = up && p.rate() != null && p.rate().bytesPerSecond() > 0 ? p.rate().bytesPerSecond() : null;
        String rateText = up && p.rate() != null ? p.rate().raw() : null;
        if (was == null) {
            return new Port(p.port(), p.linkLayer(), p.netdev(), up, rate, rateText);
        }
        boolean better = rate != null && (was.rateBytesPerSecond() == null || rate > was.rateBytesPerSecond());
        return new Port(p.port(), p.linkLayer() != null ? p.linkLayer() : was.linkLayer(),
                p.netdev() != null ? p.netdev() : was.netdev(), was.expectedUp() || up,
                better ? rate : was.rateBytesPerSecond(), better ? rateText : was.rate());
    }

    /**
     * The inventory entry a host device is: the one with its node GUID; else one with its name whose
     * GUID is unknown on either side; else one with its name in the same PCI slot (a card replaced
     * in its slot: the slot is what is expected, so the entry takes the new card's GUID).
     */
    private static int indexOf(List<Device> ds, RdmaDevice d) {
        String g = guid(d);
        for (int i = 0; i < ds.size(); i++) {
            if (g != null && g.equals(ds.get(i).nodeGuid())) {
                return i;
            }
        }
        for (int i = 0; i < ds.size(); i++) {
            Device x = ds.get(i);
            if (x.name().equals(d.name()) && x.pci() != null && x.pci().equals(d.pciAddress())) {
                return i;
            }
        }
        for (int i = 0; i < ds.size(); i++) {
            Device x = ds.get(i);
            if (x.name().equals(d.name()) && (x.nodeGuid() == null || g == null)) {
                return i;
            }
        }
        return -1;
    }

    /** A node GUID that identifies the device: null when unread or all zeros (rxe before it is bound, some VFs). */
    static String guid(RdmaDevice d) {
        String g = d.nodeGuid();
        if (g == null || g.isBlank() || g.replace(":", "").replace("0", "").isEmpty()) {
            return null;
        }
        return g.strip();
    }

    private static <T extends Comparable<T>> T max(T a, T b) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        return a.compareTo(b) >= 0 ? a : b;
    }
}
