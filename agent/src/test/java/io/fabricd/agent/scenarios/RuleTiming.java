package io.fabricd.agent.scenarios;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How late an alert of the shipped rule files can fire, derived from the rule itself
 * (docs/alerts.md, "Time to page"): the collection, scrape and evaluation that bring an onset to
 * Prometheus ({@link #LAG}), the time its window needs to fill at the slowest rate it catches, and
 * its {@code for:}.
 *
 * <p>A rule without a range (its own, a recording rule's it reads, or one the agent keeps) judges a
 * level state. A rule with one judges a rate: a window compared with a threshold is full only at
 * the slowest rate it catches, so it adds its length; one that fires on any increase ({@code > 0})
 * adds nothing (the window only decides how long one event stays in sight); a subquery adds its
 * range.
 *
 * @param severity the severity label, or "finding" where the rule takes the finding's own
 * @param build how long the window needs to fill (zero for a level state or any increase)
 * @param worst {@link #LAG} + build + hold: the latest it fires after the onset
 */
record RuleTiming(String alert, String severity, String category, Kind kind, Duration build, Duration hold, Duration worst) {

    /** A level state must page within 5 minutes of its onset, a rate within 15. */
    enum Kind {
        LEVEL(Duration.ofMinutes(5)), RATE(Duration.ofMinutes(15));

        final Duration budget;

        Kind(Duration budget) {
            this.budget = budget;
        }

        String id() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The longest each step may take: a collection, a scrape, a rule evaluation (1 minute each). */
    static final Duration COLLECTION = Duration.ofMinutes(1);
    static final Duration SCRAPE = Duration.ofMinutes(1);
    static final Duration EVALUATION = Duration.ofMinutes(1);
    static final Duration LAG = COLLECTION.plus(SCRAPE).plus(EVALUATION);

    /**
     * Categories of the observer and the fleet, not of the fabric: the agent's own health and fleet
     * drift are held for what a reboot, a rollout or an upgrade takes (docs/alerts.md), so no
     * budget applies; their time is still derived and documented.
     */
    static final Set<String> UNBUDGETED = Set.of("agent", "drift");

    /**
     * Families whose value the agent itself takes over a window: the probes' recent quantiles are
     * of the last 256 answered probes, 256 s at the default 10 probes per peer and size every 10 s
     * (docs/probes.md).
     */
    static final Map<String, Duration> AGENT_WINDOWS = Map.of("fabric_probe_rtt_recent_seconds", Duration.ofSeconds(256));

    private static final Pattern RANGE = Pattern.compile("\\[(\\d+[smhdw](?:\\d+[smhdw])*)(?::(\\d+[smhdw](?:\\d+[smhdw])*)?)?]");
    private static final Pattern RECORD = Pattern.compile("\\bfabric:[a-z0-9_:]+");
    private static final Pattern ANY_INCREASE = Pattern.compile("^[\\s)]*>\\s*0(?![\\d.])");

    /** The budget this rule is held to, or null for the observer's and the fleet's rules. */
    Duration budget() {
        return UNBUDGETED.contains(category) ? null : kind.budget;
    }

    /** Every alert of the rule files, by name, in file order. */
    static Map<String, RuleTiming> of(List<Path> ruleFiles) throws IOException {
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
        Map<String, String> records = new LinkedHashMap<>();
        List<JsonNode> alerts = new ArrayList<>();
        for (Path f : ruleFiles) {
            for (JsonNode g : yaml.readTree(f.toFile()).get("groups")) {
                for (JsonNode r : g.get("rules")) {
                    if (r.has("record")) {
                        records.put(r.get("record").asText(), r.get("expr").asText());
                    } else {
                        alerts.add(r);
                    }
                }
            }
        }
        Map<String, RuleTiming> out = new LinkedHashMap<>();
        for (JsonNode r : alerts) {
            String name = r.get("alert").asText();
            Window w = window(r.get("expr").asText(), records, new HashSet<>());
            Duration hold = duration(r.get("for").asText());
            JsonNode labels = r.get("labels");
            out.put(name, new RuleTiming(name, labels.has("severity") ? labels.get("severity").asText() : "finding",
                    labels.get("category").asText(), w.ranged ? Kind.RATE : Kind.LEVEL, w.build, hold, LAG.plus(w.build).plus(hold)));
        }
        return out;
    }

    /** What an expression's windows add: whether it has one at all, and how long the longest needs to fill. */
    private record Window(boolean ranged, Duration build) {
        Window max(Window o) {
            return new Window(ranged || o.ranged, build.compareTo(o.build) >= 0 ? build : o.build);
        }
    }

    private static Window window(String expr, Map<String, String> records, Set<String> seen) {
        Window w = new Window(false, Duration.ZERO);
        Matcher m = RANGE.matcher(expr);
        while (m.find()) {
            boolean any = m.group(2) == null && ANY_INCREASE.matcher(expr.substring(m.end())).find();
            w = w.max(new Window(true, any ? Duration.ZERO : duration(m.group(1))));
        }
        Matcher r = RECORD.matcher(expr);
        while (r.find()) {
            String name = r.group();
            if (records.containsKey(name) && seen.add(name)) {
                w = w.max(window(records.get(name), records, seen));
            }
        }
        for (var e : AGENT_WINDOWS.entrySet()) {
            if (Pattern.compile("\\b" + e.getKey() + "\\b").matcher(expr).find()) {
                w = w.max(new Window(true, e.getValue()));
            }
        }
        return w;
    }

    /** A Prometheus duration: 90s, 5m, 1h30m. */
    static Duration duration(String text) {
        Matcher m = Pattern.compile("(\\d+)([smhdw])").matcher(text);
        Duration d = Duration.ZERO;
        int end = 0;
        while (m.find()) {
            if (m.start() != end) {
                break;
            }
            long n = Long.parseLong(m.group(1));
            d = d.plus(switch (m.group(2)) {
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                case "d" -> Duration.ofDays(n);
                default -> Duration.ofDays(7 * n);
            });
            end = m.end();
        }
        if (end != text.length() || text.isEmpty()) {
            throw new IllegalArgumentException("not a duration: " + text);
        }
        return d;
    }

    /** As docs/alerts.md writes it: 0, 45s, 5m, 14m32s. */
    static String format(Duration d) {
        if (d.isZero()) {
            return "0";
        }
        long m = d.toMinutes();
        long s = d.toSecondsPart();
        return (m > 0 ? m + "m" : "") + (s > 0 ? s + "s" : "");
    }
}
