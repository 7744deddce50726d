package io.fabricd.diagnosis.checks;

import io.fabricd.model.HostModel;
import io.fabricd.model.RdmaDevice;
import java.util.Comparator;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * Which adapter card an RDMA device belongs to, and where on it. A dual-port mlx5 card is two PCI
 * functions of one slot ({@code 0000:31:00.0}, {@code .1}), each its own RDMA device with one port,
 * and both report the card's system image GUID; so two devices are one card when they share a
 * system image GUID (not all zeros) or a PCI slot. A device's position is its index among the
 * card's devices of its own {@code hca_type} (virtual functions have another), ordered by PCI
 * address, then node GUID: 0 for the first port of a card, 1 for the second function of a
 * dual-port card. Without a PCI address and a system image GUID the card is not known.
 */
final class Cards {
    private static final String ZERO_GUID = "0000:0000:0000:0000";
    private static final Comparator<RdmaDevice> ORDER = Comparator
            .comparing(RdmaDevice::pciAddress, Comparator.nullsLast(Comparator.naturalOrder()))
            .thenComparing(RdmaDevice::nodeGuid, Comparator.nullsLast(Comparator.naturalOrder()))
            .thenComparing(RdmaDevice::name);

    private Cards() {
    }

    /** True when both devices are functions of one card (a device is on its own card). */
    static boolean same(RdmaDevice a, RdmaDevice b) {
        if (a.name().equals(b.name())) {
            return true;
        }
        String guid = guid(a);
        if (guid != null && guid.equals(guid(b))) {
            return true;
        }
        String slot = slot(a);
        return slot != null && slot.equals(slot(b));
    }

    /** The device's position on its card; empty when its card is not known. */
    static OptionalInt position(HostModel m, RdmaDevice d) {
        if (guid(d) == null && slot(d) == null) {
            return OptionalInt.empty();
        }
        int before = 0;
        for (RdmaDevice o : m.devices()) {
            if (!o.name().equals(d.name()) && same(d, o) && Objects.equals(o.hcaType(), d.hcaType()) && ORDER.compare(o, d) < 0) {
                before++;
            }
        }
        return OptionalInt.of(before);
    }

    private static String guid(RdmaDevice d) {
        String g = d.sysImageGuid() == null ? null : d.sysImageGuid().strip();
        return g == null || g.isEmpty() || ZERO_GUID.equals(g) ? null : g;
    }

    /** "0000:31:00" of the function "0000:31:00.1". */
    private static String slot(RdmaDevice d) {
        String a = d.pciAddress();
        int dot = a == null ? -1 : a.lastIndexOf('.');
        return dot > 0 ? a.substring(0, dot) : null;
    }
}
