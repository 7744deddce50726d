package io.fabricd.preflight;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** The gate's word on a node or a link. UNKNOWN counts as EXCLUDE unless {@link Policy#unknownPasses()}. */
public enum Verdict {
    PASS, EXCLUDE, UNKNOWN;

    /** {@code pass}, {@code exclude}, {@code unknown}: the JSON and text form. */
    @JsonValue
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }
}
