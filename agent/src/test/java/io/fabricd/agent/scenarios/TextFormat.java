package io.fabricd.agent.scenarios;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Prometheus text format 0.0.4 as a scrape stores it: each sample's series (labels sorted, empty
 * ones dropped, as Prometheus drops them) to its value. Series keys keep the format's escapes, which
 * PromQL's series notation (promtool's input_series) reads the same way.
 */
final class TextFormat {
    private TextFormat() {
    }

    static Map<String, Double> parse(String text) {
        Map<String, Double> out = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int brace = line.indexOf('{');
            int space;
            String name;
            TreeMap<String, String> labels = new TreeMap<>();
            if (brace < 0) {
                space = line.indexOf(' ');
                name = line.substring(0, space);
            } else {
                name = line.substring(0, brace);
                int i = brace + 1;
                while (line.charAt(i) != '}') {
                    int eq = line.indexOf('=', i);
                    String label = line.substring(i, eq).strip();
                    StringBuilder v = new StringBuilder();
                    int j = eq + 2; // past ="
                    while (line.charAt(j) != '"') {
                        char c = line.charAt(j);
                        if (c == '\\') {
                            v.append(c).append(line.charAt(j + 1));
                            j += 2;
                        } else {
                            v.append(c);
                            j++;
                        }
                    }
                    if (!v.isEmpty()) {
                        labels.put(label, v.toString());
                    }
                    i = j + 1;
                    if (line.charAt(i) == ',') {
                        i++;
                    }
                }
                space = i + 1;
            }
            String value = line.substring(space).strip().split(" ")[0];
            out.put(key(name, labels), Double.parseDouble(value));
        }
        return out;
    }

    static String key(String name, Map<String, String> labels) {
        StringBuilder sb = new StringBuilder(name).append('{');
        boolean first = true;
        for (var e : labels.entrySet()) {
            if (!first) {
                sb.append(',');
            }
            first = false;
            sb.append(e.getKey()).append("=\"").append(e.getValue()).append('"');
        }
        return sb.append('}').toString();
    }

    /** The metric name of a series key. */
    static String name(String key) {
        return key.substring(0, key.indexOf('{'));
    }
}
