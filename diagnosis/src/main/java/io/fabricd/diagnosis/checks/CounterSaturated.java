package io.fabricd.diagnosis.checks;

import io.fabricd.model.CounterWidths;
import io.fabricd.model.CounterWidths.Kind;
import io.fabricd.model.HostModel;
import io.fabricd.model.RdmaPort;
import io.fabricd.diagnosis.Check;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.model.finding.Evidence;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Severity;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * {@code counter_saturated} (warning): a fixed-width PMA counter pinned at its maximum (IBA
 * §16.1.3.5: PortCounters saturate and stay), so its rate reads zero and whatever it counts is
 * invisible until it is cleared: errors, congestion ({@code port_xmit_wait}, time the port waited
 * to send: no cable to blame) or traffic (32-bit data and packet counters). A pinned 32-bit data
 * counter whose 64-bit twin {@code counters_ext/} has blinds nothing: fabricd reads the twin.
 * One finding per port, listing every pinned counter with its kind; the words follow the kinds.
 */
public final class CounterSaturated extends Check.Declared {

    public CounterSaturated() {
        super("counter_saturated");
    }

    @Override
    public List<Finding> evaluate(Inputs in, DiagnosisConfig config) {
        HostModel m = in.current();
        List<Finding> out = new ArrayList<>();
        for (RdmaPort p : m.ports()) {
            List<Evidence> pinned = new ArrayList<>();
            Set<Kind> kinds = EnumSet.noneOf(Kind.class);
            for (String c : p.saturated()) {
                Kind kind = CounterWidths.kind(c);
                if (kind == Kind.TRAFFIC && p.countersExt().containsKey(c + "_64")) {
                    continue; // the kernel's 64-bit counters_ext/ twin counts on, and fabricd exports it
                }
                kinds.add(kind);
                Evidence.Builder e = Evidence.builder();
                e.put("counter", c);
                e.put("kind", kind.name().toLowerCase(Locale.ROOT));
                e.put("value", Long.toUnsignedString(p.counters().get(c)));
                e.put("width_bits", CounterWidths.width(c, p.counters()));
                pinned.add(e.build());
            }
            if (pinned.isEmpty()) {
                continue;
            }
            String names = String.join(", ", pinned.stream().map(e -> e.text("counter")).toList());
            out.add(new Finding(id(), Severity.WARNING, Ports.subject(p),
                    names + " on " + p.device() + " port " + p.port() + (pinned.size() == 1 ? " is" : " are")
                            + " pinned at the counter's maximum: " + blind(kinds),
                    Evidence.builder().objects("saturated", pinned), remediation(kinds, p)));
        }
        return out;
    }

    /** What the pinned counters no longer show. */
    private static String blind(Set<Kind> kinds) {
        List<String> what = new ArrayList<>();
        if (kinds.contains(Kind.ERROR)) {
            what.add("errors");
        }
        if (kinds.contains(Kind.CONGESTION)) {
            what.add("congestion");
        }
        if (kinds.contains(Kind.TRAFFIC)) {
            what.add("traffic");
        }
        String list = what.size() == 1 ? what.get(0)
                : String.join(", ", what.subList(0, what.size() - 1)) + " and " + what.get(what.size() - 1);
        String text = "new " + list + (what.size() > 1 || kinds.contains(Kind.ERROR) ? " are" : " is") + " invisible";
        return kinds.contains(Kind.CONGESTION) && !kinds.contains(Kind.ERROR)
                ? text + " (time the port had data to send and waited: congestion, not errors)" : text;
    }

    private static String remediation(Set<Kind> kinds, RdmaPort p) {
        String clear = "clear the port counters as root: `perfquery -R` on the host (or `perfquery -R <lid> " + p.port() + "`).";
        if (kinds.equals(EnumSet.of(Kind.ERROR))) {
            return "Find the cause of the errors (cable, transceiver: `ibqueryerrors`, `mlxlink`), then " + clear;
        }
        StringBuilder fix = new StringBuilder();
        if (kinds.contains(Kind.ERROR)) {
            fix.append("Find the cause of the errors (cable, transceiver: `ibqueryerrors`, `mlxlink`). ");
        }
        if (kinds.contains(Kind.CONGESTION)) {
            fix.append("A pinned congestion counter is no fault of this port or its link: if it pins again soon after a clear, "
                    + "traffic out of this port keeps waiting for flow-control credits (congestion downstream or a slow receiver). ");
        }
        if (kinds.contains(Kind.TRAFFIC)) {
            fix.append("32-bit data and packet counters pin quickly on a busy link; the 64-bit extended counters "
                    + "(`counters/unicast_*`, or `counters_ext/` on older kernels) do not. ");
        }
        return fix.append("So that they count again, ").append(clear).toString();
    }
}
