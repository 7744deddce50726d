package io.fabricd.diagnosis.checks;

import io.fabricd.model.HostModel;
import io.fabricd.model.RdmaDevice;
import io.fabricd.model.RdmaPort;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.diagnosis.inventory.Inventory;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Whether a port is expected to be up, and what says so (docs/alerts.md, "Which ports must be up").
 * In order: the configuration ({@code diagnosis.link.expect_up}); the inventory, when it knows the
 * port (it was seen up since the inventory was learned or accepted, or it was not); without either,
 * the same port of another card of the same type that is up (eight single-port cards with seven
 * up: the eighth should be), at the same position on its card ({@link Cards}): the second function
 * of a dual-port card answers only to the second functions of other cards. A port nothing expects — the uncabled second port of a dual-port card,
 * an unused RoCE port — is inventory, never a page.
 *
 * @param expected whether the port must be up
 * @param reason   what says so, in words, for the finding's evidence
 */
public record PortExpectation(boolean expected, String reason) {

    public static PortExpectation of(HostModel m, RdmaPort p, Inventory inventory, DiagnosisConfig config) {
        for (String glob : config.link().expectUp()) {
            if (matches(glob, p.device() + "/" + p.port())) {
                return new PortExpectation(true, "configured (diagnosis.link.expect_up: " + glob + ")");
            }
        }
        if (inventory != null) {
            Optional<Inventory.Port> known = inventory.port(m, p);
            if (known.isPresent()) {
                return known.get().expectedUp()
                        ? new PortExpectation(true, "the inventory (" + inventory.origin() + " " + inventory.acceptedAt()
                                + ") saw it up" + (known.get().rate() != null ? " at " + known.get().rate() : ""))
                        : new PortExpectation(false, "never seen up since the inventory was " + inventory.origin() + " ("
                                + inventory.acceptedAt() + ")");
            }
        }
        RdmaDevice d = m.device(p.device()).orElse(null);
        String hca = d == null ? null : d.hcaType();
        OptionalInt position = d == null ? OptionalInt.empty() : Cards.position(m, d);
        if (hca != null && !hca.isBlank() && position.isPresent()) {
            for (RdmaDevice o : m.devices()) {
                if (Cards.same(d, o) || !hca.equals(o.hcaType()) || !position.equals(Cards.position(m, o))) {
                    continue; // the same card, another model, or another function of its card
                }
                for (RdmaPort op : o.ports()) {
                    if (op.port() == p.port() && op.up() && Objects.equals(op.linkLayer(), p.linkLayer())) {
                        return new PortExpectation(true, "port " + op.port() + " of " + op.device() + ", "
                                + (position.getAsInt() == 0 ? "" : "function " + (position.getAsInt() + 1) + " of ")
                                + "a card of the same type (" + hca + "), is up");
                    }
                }
            }
        }
        String sameType = hca != null && !hca.isBlank() && position.isEmpty()
                ? "its card is not known (no PCI address, no system image GUID) to compare with cards of the same type"
                : "no card of the same type with this port up";
        return new PortExpectation(false, (inventory == null ? "no inventory" : "not in the inventory")
                + ", no configured expectation and " + sameType);
    }

    static boolean matches(String glob, String value) {
        return Pattern.compile(Pattern.quote(glob).replace("*", "\\E.*\\Q")).matcher(value).matches();
    }
}
