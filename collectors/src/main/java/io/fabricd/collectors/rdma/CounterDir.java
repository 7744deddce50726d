package io.fabricd.collectors.rdma;

import io.fabricd.collectors.CollectContext;
import io.fabricd.model.Counters;
import io.fabricd.collectors.source.FileRead;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/** A port's counter folder ({@code counters/}, {@code counters_ext/}, {@code hw_counters/}): its names and values. */
final class CounterDir {
    private CounterDir() {
    }

    /**
     * The names of a counter directory (the driver's). {@code lifespan} in hw_counters/ is the driver's cache time in milliseconds,
     * not a counter, and is left out.
     */
    static List<String> names(CollectContext ctx, String dir, boolean hw) {
        List<String> names = ctx.listOptional(dir);
        if (hw && names.contains("lifespan")) {
            List<String> without = new ArrayList<>(names);
            without.remove("lifespan");
            return List.copyOf(without);
        }
        return names;
    }

    /** "N/A (no PMA)": what kernels before 4.19 print for a PMA counter the driver cannot answer. */
    private static final String NO_PMA = "N/A (no PMA)";

    /**
     * Every file of a counter directory ({@link #names}), unsigned values. A directory whose
     * every file says the driver has no PMA behind it ({@code N/A (no PMA)}, i40iw on older kernels;
     * EINVAL on every read, qedr and drivers whose MAD handler answers no PMA query) is absence, not
     * a read error per file.
     */
    static SortedMap<String, Long> read(CollectContext ctx, String dir, List<String> names) {
        SortedMap<String, Long> out = new TreeMap<>();
        if (names.isEmpty()) {
            return out;
        }
        Map<String, FileRead> texts = ctx.source().readEach(dir, names);
        if (noPma(texts, names)) {
            return out;
        }
        for (String name : names) {
            FileRead text = texts.get(name);
            if (!text.ok()) {
                if (!text.failure().isMissing()) {
                    ctx.error(text.failure());
                }
                continue;
            }
            String s = text.text();
            Long v = Counters.parse(s);
            if (v == null) {
                ctx.error(dir + "/" + name, s.isBlank() ? "empty" : "not a counter: '" + RdmaCollector.abbreviate(s) + "'");
                continue;
            }
            out.put(name, v);
        }
        return out;
    }

    /** True when no file of the folder has a value and each says there is no PMA (the text, or EINVAL). */
    private static boolean noPma(Map<String, FileRead> texts, List<String> names) {
        for (String name : names) {
            FileRead t = texts.get(name);
            boolean none = t.ok() ? t.text().strip().equals(NO_PMA) : "EINVAL".equals(t.failure().errno());
            if (!none) {
                return false;
            }
        }
        return true;
    }
}
