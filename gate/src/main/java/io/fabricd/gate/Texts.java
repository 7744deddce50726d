package io.fabricd.gate;

import io.fabricd.model.OneLine;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/** Small formatting helpers for preflight's lines. */
final class Texts {
    /** The longest line taken of a failure (an agent's text of 200 characters and what came before it). */
    static final int MAX_LINE = 300;

    private Texts() {
    }

    /** {@link OneLine} of at most {@link #MAX_LINE} characters. */
    static String line(String s) {
        return OneLine.of(s, MAX_LINE);
    }

    /** {@code a, b, c} or {@code a, b, c, d, e and 3 more}. */
    static String names(List<String> names) {
        int shown = 5;
        return names.size() <= shown ? String.join(", ", names)
                : String.join(", ", names.subList(0, shown)) + " and " + (names.size() - shown) + " more";
    }

    /** "1 node", "12 nodes". */
    static String count(int n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }

    /** "45 s", "12 min", "3 h": an age or a bound, whole units. */
    static String age(Duration d) {
        long s = d.toSeconds();
        return s < 120 ? s + " s" : s < 7200 ? s / 60 + " min" : s / 3600 + " h";
    }

    /** "12.3 s". */
    static String seconds(Duration d) {
        return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
    }
}
