package io.fabricd.diagnosis;

/** Finding severity (interfaces.md): critical, warning, info. Unknown is never critical. */
public enum Severity {
    CRITICAL, WARNING, INFO;

    @com.fasterxml.jackson.annotation.JsonValue
    public String id() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** True when this is at least as severe as {@code other}. */
    public boolean atLeast(Severity other) {
        return ordinal() <= other.ordinal();
    }
}
