package io.fabricd.collectors.lldp;

import io.fabricd.model.topology.Names;
import java.util.ArrayList;
import java.util.List;

/**
 * The names a neighbour announces, kept only when they are names ({@link Names#valid}): any host or
 * switch on the segment can send LLDP, and its system name, chassis id, port and MAU type end up in suggested
 * switch commands, findings' words and evidence, metric labels and the terminal. A value that is not a
 * name (a blank, a quote, a backtick, a control or a right-to-left override character) is taken as not
 * announced, and said, quoted with {@link Names#quoted}, in {@link #refused}. The port description,
 * free text kept for the host model, is kept only when it is printable ASCII.
 */
record NeighborNames(String sysName, String chassisId, String switchPort, String portDescr, String mauType, List<String> refused) {

    static NeighborNames of(LldpJson.Announcement a) {
        List<String> refused = new ArrayList<>();
        String sys = kept(a.sysName(), "system name", refused);
        String chassis = kept(a.chassisId(), "chassis id", refused);
        String port = kept(a.switchPort(), a.switchPort() != null && a.switchPort().equals(a.portId()) ? "port id" : "port description",
                refused);
        String mau = kept(a.mauType(), "MAU type", refused);
        String descr = a.portDescr() != null && a.portDescr().chars().allMatch(c -> c >= 0x20 && c < 0x7f) ? a.portDescr() : null;
        return new NeighborNames(sys, chassis, port, descr, mau, List.copyOf(refused));
    }

    private static String kept(String value, String what, List<String> refused) {
        if (value == null || Names.valid(value)) {
            return value;
        }
        refused.add("its " + what + " " + Names.quoted(value));
        return null;
    }
}
