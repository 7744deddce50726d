package io.fabricd.diagnosis.checks;

import io.fabricd.model.HostModel;
import io.fabricd.model.RdmaDevice;
import io.fabricd.model.RdmaPort;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.diagnosis.inventory.Inventory;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Whether a port is expected to be up, and what says so (docs/alerts.md, "Which ports must be up").
 * In order: the configuration ({@code diagnosis.link.expect_up}); the inventory, when it knows the
 * port (it was seen up since the inventory was learned or accepted, or it was not); without either,
 * the same port of another card of the same type that is up (eight single-port cards with seven
 * up: the eighth should be). A port nothing expects — the uncabled second port of a dual-port card,
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
        String hca = m.device(p.device()).map(RdmaDevice::hcaType).orElse(null);
        if (hca != null && !hca.isBlank()) {
            for (RdmaDevice d : m.devices()) {
                if (d.name().equals(p.device()) || !hca.equals(d.hcaType())) {
                    continue;
                }
                for (RdmaPort o : d.ports()) {
                    if (o.port() == p.port() && o.up() && Objects.equals(o.linkLayer(), p.linkLayer())) {
                        return new PortExpectation(true, "port " + o.port() + " of " + o.device() + ", a card of the same type ("
                                + hca + "), is up");
                    }
                }
            }
        }
        return new PortExpectation(false, inventory == null
                ? "no inventory, no configured expectation and no card of the same type with this port up"
                : "not in the inventory, no configured expectation and no card of the same type with this port up");
    }

    static boolean matches(String glob, String value) {
        return Pattern.compile(Pattern.quote(glob).replace("*", "\\E.*\\Q")).matcher(value).matches();
    }
}
