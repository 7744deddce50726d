package io.fabricd.agent.preflight;

import java.time.Duration;
import java.util.Locale;

/** Small formatting helpers for preflight's lines. */
final class Texts {
    private Texts() {
    }

    /** One line of at most 300 characters, control characters as '?'. */
    static String line(String s) {
        String t = s.strip().replaceAll("\\p{Cntrl}", "?");
        return t.length() > 300 ? t.substring(0, 300) + "..." : t;
    }

    /** "12.3 s". */
    static String seconds(Duration d) {
        return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
    }
}
