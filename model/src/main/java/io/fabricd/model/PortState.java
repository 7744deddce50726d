package io.fabricd.model;

/**
 * A sysfs {@code "%d: %s"} state: {@code state} (4: ACTIVE) or {@code phys_state} (5: LinkUp).
 * The name is kept as the kernel printed it.
 */
public record PortState(int id, String name) {

    /** Parses "4: ACTIVE"; null when the text is not of that form. */
    public static PortState parse(String text) {
        String t = text.strip();
        int colon = t.indexOf(':');
        if (colon <= 0) {
            return null;
        }
        try {
            int id = Integer.parseInt(t.substring(0, colon).strip());
            return id < 0 ? null : new PortState(id, t.substring(colon + 1).strip());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static final String[] STATES = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"};
    private static final String[] PHYS_STATES = {"NOP", "Sleep", "Polling", "Disabled", "PortConfigurationTraining",
        "LinkUp", "LinkErrorRecovery", "PhyTest"};

    /**
     * What the id means for a logical port state (IBA 14.2.5.6; sysfs {@code state}), whatever text
     * the driver printed beside it; "state N" for an id the IBTA does not name.
     */
    public String stateMeaning() {
        return id < STATES.length ? STATES[id] : "state " + id;
    }

    /** What the id means for a physical port state ({@code phys_state}); "physical state N" when unnamed. */
    public String physMeaning() {
        return id < PHYS_STATES.length ? PHYS_STATES[id] : "physical state " + id;
    }

    @Override
    public String toString() {
        return id + ": " + name;
    }
}
