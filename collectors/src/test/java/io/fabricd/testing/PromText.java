package io.fabricd.testing;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Parses Prometheus text exposition (0.0.4 or OpenMetrics) into "name{a="x",b="y"}" -> value, with
 * label pairs sorted by name, so tests compare series regardless of the writer's order.
 */
public final class PromText {
    private PromText() {
    }

    public static Map<String, Double> parse(String text) {
        Map<String, Double> out = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String name;
            String labels = "";
            String rest;
            int brace = line.indexOf('{');
            int space = line.indexOf(' ');
            if (brace >= 0 && brace < space) {
                name = line.substring(0, brace);
                int end = closing(line, brace);
                labels = line.substring(brace + 1, end);
                rest = line.substring(end + 1).strip();
            } else {
                name = line.substring(0, space);
                rest = line.substring(space + 1).strip();
            }
            String value = rest.split(" ")[0];
            out.put(key(name, labels), parseValue(value));
        }
        return out;
    }

    private static int closing(String line, int open) {
        boolean inQuote = false;
        for (int i = open + 1; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '\\') {
                i++;
            } else if (c == '"') {
                inQuote = !inQuote;
            } else if (c == '}' && !inQuote) {
                return i;
            }
        }
        throw new IllegalArgumentException("unclosed labels: " + line);
    }

    private static double parseValue(String v) {
        return switch (v) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            case "NaN" -> Double.NaN;
            default -> Double.parseDouble(v);
        };
    }

    static String key(String name, String labels) {
        TreeMap<String, String> sorted = new TreeMap<>();
        int i = 0;
        while (i < labels.length()) {
            int eq = labels.indexOf('=', i);
            if (eq < 0) {
                break;
            }
            String k = labels.substring(i, eq).strip();
            if (k.startsWith(",")) {
                k = k.substring(1).strip();
            }
            int q = eq + 2;
            StringBuilder v = new StringBuilder();
            while (q < labels.length() && labels.charAt(q) != '"') {
                if (labels.charAt(q) == '\\') {
                    q++;
                }
                v.append(labels.charAt(q));
                q++;
            }
            sorted.put(k, v.toString());
            i = q + 1;
            while (i < labels.length() && (labels.charAt(i) == ',' || labels.charAt(i) == ' ')) {
                i++;
            }
        }
        return series(name, sorted);
    }

    /** The key of a series: {@code series("fabric_port_up", Map.of("device","mlx5_0","port","1"))}. */
    public static String series(String name, Map<String, String> labels) {
        if (labels.isEmpty()) {
            return name;
        }
        StringBuilder sb = new StringBuilder(name).append('{');
        new TreeMap<>(labels).forEach((k, v) -> sb.append(k).append("=\"").append(v).append("\","));
        sb.setLength(sb.length() - 1);
        return sb.append('}').toString();
    }

    /** Shorthand: {@code s("fabric_port_up", "device", "mlx5_0", "port", "1")}. */
    public static String s(String name, String... kv) {
        Map<String, String> m = new TreeMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return series(name, m);
    }
}
