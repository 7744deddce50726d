package io.fabricd.collectors.model;

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
            if (id < 0) {
                return null;
            }
            return new PortState(id, t.substring(colon + 1).strip());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    @Override
    public String toString() {
        return id + ": " + name;
    }
}
