package io.fabricd.model.finding;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** Finding severity (interfaces.md): critical, warning, info. Unknown is never critical. */
public enum Severity {
    CRITICAL, WARNING, INFO;

    @JsonValue
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** True when this is at least as severe as {@code other}. */
    public boolean atLeast(Severity other) {
        return ordinal() <= other.ordinal();
    }
}
