package io.fabricd.diagnosis.inventory;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The inventory's stored form, {@code inventory.json}: written by the agent and
 * {@code fabricd inventory accept}, read back as input like any other.
 */
public final class InventoryFile {
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            // a file someone edited by hand: null or "1" is not a port number, 1.5 is not a width
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            .build();
    /** What a stored inventory may hold at most: far above any host, far below what hurts a scrape. */
    static final int MAX_DEVICES = 512;
    static final int MAX_PORTS = 64;
    static final int MAX_PCI = 2048;
    private static final Pattern BDF = Pattern.compile("[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7]");
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.:@+-]{1,64}");

    private InventoryFile() {
    }

    /** The file's text. */
    public static String write(Inventory inv) {
        try {
            return JSON.writeValueAsString(inv) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Parses an inventory file; IllegalArgumentException with the reason when it is not one. A
     * stored file is input like any other: every field is checked (names, PCI addresses, kinds, port
     * numbers, dates, counts), so a file edited by hand or planted cannot make a check throw, a
     * series explode or a terminal print control characters.
     */
    public static Inventory read(String json) {
        Inventory inv;
        try {
            inv = JSON.readValue(json, Inventory.class);
        } catch (JsonProcessingException | NullPointerException e) {
            // Jackson's own words name its classes: say where the file went wrong instead
            if (e instanceof JsonProcessingException j && j.getLocation() != null) {
                String what = j instanceof JsonParseException ? "not JSON"
                        : "a field has the wrong type or is missing";
                throw new IllegalArgumentException(what + " at line " + j.getLocation().getLineNr() + ", column "
                        + j.getLocation().getColumnNr());
            }
            throw new IllegalArgumentException("not an inventory");
        }
        if (inv == null) {
            throw new IllegalArgumentException("empty");
        }
        validate(inv);
        return inv;
    }

    private static void validate(Inventory inv) {
        check(inv.format() == Inventory.FORMAT, "format " + inv.format() + " (this fabricd reads format " + Inventory.FORMAT + ")");
        check(Inventory.LEARNED.equals(inv.origin()) || Inventory.ACCEPTED.equals(inv.origin()), "origin must be learned or accepted");
        for (String at : new String[] {inv.acceptedAt(), inv.updatedAt()}) {
            try {
                Instant.parse(at);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("accepted_at and updated_at must be ISO-8601 instants");
            }
        }
        check(inv.host() == null || inv.host().length() <= 253 && inv.host().chars().noneMatch(Character::isISOControl), "host is not a host name");
        check(inv.devices().size() <= MAX_DEVICES, "more than " + MAX_DEVICES + " devices");
        check(inv.pci().size() <= MAX_PCI, "more than " + MAX_PCI + " PCI functions");
        for (Inventory.Device d : inv.devices()) {
            check(NAME.matcher(d.name()).matches(), "device name '" + printable(d.name()) + "' is not a device name");
            check(d.nodeGuid() == null || d.nodeGuid().matches("[0-9a-fA-F:]{1,64}"), "node_guid of " + d.name() + " is not a GUID");
            check(d.pci() == null || BDF.matcher(d.pci()).matches(), "pci of " + d.name() + " is not a PCI address");
            check(d.ports().size() <= MAX_PORTS, d.name() + " has more than " + MAX_PORTS + " ports");
            Set<Integer> numbers = new HashSet<>();
            for (Inventory.Port p : d.ports()) {
                check(p.port() >= 1 && p.port() <= 255 && numbers.add(p.port()), d.name() + ": port " + p.port() + " is not a port number once");
                check(p.netdev() == null || NAME.matcher(p.netdev()).matches(), d.name() + ": netdev is not a netdev name");
                for (String t : new String[] {p.linkLayer(), p.rate()}) {
                    check(t == null || t.length() <= 64 && t.chars().noneMatch(Character::isISOControl), d.name() + ": a port field is not text");
                }
                check(p.rateBytesPerSecond() == null || p.rateBytesPerSecond() >= 0, d.name() + ": a negative rate");
            }
        }
        for (Inventory.Pci f : inv.pci()) {
            check(BDF.matcher(f.address()).matches(), "pci address '" + printable(f.address()) + "' is not a PCI address");
            check(f.kind() != null && Inventory.KINDS.contains(f.kind()), f.address() + ": kind must be one of " + new TreeSet<>(Inventory.KINDS));
            check(f.width() == null || f.width() >= 1 && f.width() <= 32, f.address() + ": width is not 1-32 lanes");
            check(f.speed() == null || f.speed() >= 0, f.address() + ": a negative speed");
        }
    }

    private static void check(boolean ok, String why) {
        if (!ok) {
            throw new IllegalArgumentException(why);
        }
    }

    private static String printable(String s) {
        String t = s.replaceAll("\\p{Cntrl}", "?");
        return t.length() > 40 ? t.substring(0, 40) + "..." : t;
    }
}
