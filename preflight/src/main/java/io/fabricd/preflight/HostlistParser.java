package io.fabricd.preflight;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** {@link Hostlist#parse}: checks the whole expression and counts its names before expanding any. */
final class HostlistParser {
    private static final int QUOTED = 40;
    private static final int MAX_DIGITS = 18;

    private final String expr;

    private HostlistParser(String expr) {
        this.expr = expr;
    }

    static List<String> parse(String expr) {
        if (expr == null || expr.isBlank()) {
            throw new IllegalArgumentException("empty hostlist: give node names such as gpu[001-064,070]");
        }
        if (expr.length() > Hostlist.MAX_CHARS) {
            throw new IllegalArgumentException("hostlist of " + expr.length() + " characters is too long (at most "
                    + Hostlist.MAX_CHARS + "): give ranges such as gpu[0001-1000], or a file of names");
        }
        return new HostlistParser(expr).expand();
    }

    /** Throws unless {@code name} is a host name: letters, digits, '-', '.', '_', 1 to 255 characters. */
    static void checkName(String name) {
        if (name == null || name.isEmpty() || name.length() > Hostlist.MAX_NAME) {
            throw new IllegalArgumentException("node name " + quote(name == null ? "" : name) + " is empty or longer than "
                    + Hostlist.MAX_NAME + " characters");
        }
        for (int i = 0; i < name.length(); i++) {
            if (!nameChar(name.charAt(i))) {
                throw new IllegalArgumentException("node name " + quote(name) + " has a character other than letters, digits, '-', '.', '_'");
            }
        }
    }

    private List<String> expand() {
        List<List<Part>> items = new ArrayList<>();
        long total = 0;
        for (String item : splitTop()) {
            List<Part> parts = parts(item.strip());
            long n = 1;
            for (Part p : parts) {
                n *= p.count();
                if (n > Hostlist.MAX_NAMES) {
                    break;
                }
            }
            total += n;
            if (total > Hostlist.MAX_NAMES) {
                throw tooMany();
            }
            items.add(parts);
        }
        Set<String> names = new LinkedHashSet<>();
        for (List<Part> parts : items) {
            product(parts, 0, new StringBuilder(), names);
        }
        return List.copyOf(names);
    }

    private void product(List<Part> parts, int at, StringBuilder prefix, Set<String> out) {
        if (at == parts.size()) {
            String name = prefix.toString();
            if (name.length() > Hostlist.MAX_NAME) {
                throw fail("name " + quote(name) + " is longer than " + Hostlist.MAX_NAME + " characters");
            }
            out.add(name);
            return;
        }
        int len = prefix.length();
        Part part = parts.get(at);
        if (part.literal() != null) {
            prefix.append(part.literal());
            product(parts, at + 1, prefix, out);
            prefix.setLength(len);
            return;
        }
        for (Range r : part.ranges()) {
            for (long v = r.lo(); v <= r.hi(); v++) {
                prefix.append(Hostlist.pad(v, r.width()));
                product(parts, at + 1, prefix, out);
                prefix.setLength(len);
            }
        }
    }

    /** The top-level items: commas outside brackets split; brackets must pair, one level deep. */
    private List<String> splitTop() {
        List<String> items = new ArrayList<>();
        int start = 0;
        boolean open = false;
        for (int i = 0; i < expr.length(); i++) {
            char c = expr.charAt(i);
            if (c == '[') {
                if (open) {
                    throw fail("'[' inside brackets: one level of brackets only");
                }
                open = true;
            } else if (c == ']') {
                if (!open) {
                    throw fail("']' without '['");
                }
                open = false;
            } else if (c == ',' && !open) {
                items.add(expr.substring(start, i));
                start = i + 1;
            }
        }
        if (open) {
            throw fail("'[' is never closed: write ranges as gpu[001-064]");
        }
        items.add(expr.substring(start));
        return items;
    }

    /** One item as its parts: literal text, or a bracket group's ranges (counted, not yet expanded). */
    private List<Part> parts(String item) {
        if (item.isEmpty()) {
            throw fail("an empty name between commas");
        }
        List<Part> parts = new ArrayList<>();
        int i = 0;
        while (i < item.length()) {
            if (item.charAt(i) == '[') {
                int close = item.indexOf(']', i);
                parts.add(group(item.substring(i + 1, close)));
                i = close + 1;
            } else {
                int j = i;
                while (j < item.length() && item.charAt(j) != '[') {
                    if (!nameChar(item.charAt(j))) {
                        throw fail("character '" + printable(item.charAt(j)) + "' is not allowed in a node name");
                    }
                    j++;
                }
                parts.add(new Part(item.substring(i, j), List.of(), 1));
                i = j;
            }
            if (parts.size() > Hostlist.MAX_NAME) { // every part gives a name at least one character
                throw fail("a name longer than " + Hostlist.MAX_NAME + " characters");
            }
        }
        return parts;
    }

    private Part group(String inside) {
        if (inside.isEmpty()) {
            throw fail("empty brackets []");
        }
        List<Range> ranges = new ArrayList<>();
        long count = 0;
        for (String token : inside.split(",", -1)) {
            int dash = token.indexOf('-');
            String lo = dash < 0 ? token : token.substring(0, dash);
            String hi = dash < 0 ? token : token.substring(dash + 1);
            long a = number(lo, token);
            long b = number(hi, token);
            if (a > b) {
                throw fail("range " + token + " is reversed: write the lower number first");
            }
            count += b - a + 1;
            if (count > Hostlist.MAX_NAMES) {
                throw tooMany();
            }
            ranges.add(new Range(a, b, lo.length()));
        }
        return new Part(null, ranges, count);
    }

    private long number(String digits, String token) {
        if (digits.isEmpty() || digits.length() > MAX_DIGITS || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw fail("'" + quoteBare(token) + "' in brackets is not a number or a range such as 001-064");
        }
        return Long.parseLong(digits);
    }

    private IllegalArgumentException tooMany() {
        return fail("stands for more than " + Hostlist.MAX_NAMES + " names: split the job's node set");
    }

    private IllegalArgumentException fail(String what) {
        return new IllegalArgumentException("hostlist " + quote(expr) + ": " + what);
    }

    private static boolean nameChar(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_';
    }

    private static String printable(char c) {
        return c < 0x20 || c == 0x7f ? String.format("\\u%04x", (int) c) : String.valueOf(c);
    }

    /** At most 40 characters of {@code s}, quoted, control characters shown as '?'. */
    static String quote(String s) {
        return "\"" + quoteBare(s) + "\"";
    }

    private static String quoteBare(String s) {
        String cut = s.length() > QUOTED ? s.substring(0, QUOTED - 3) + "..." : s;
        StringBuilder b = new StringBuilder(cut.length());
        cut.chars().forEach(c -> b.append(c < 0x20 || c == 0x7f ? '?' : (char) c));
        return b.toString();
    }

    /** Literal text (ranges empty), or a bracket group's ranges and how many numbers they give. */
    private record Part(String literal, List<Range> ranges, long count) {
    }

    private record Range(long lo, long hi, int width) {
    }
}
