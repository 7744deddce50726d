package io.fabricd.preflight;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Slurm hostlists: {@code gpu[001-064,070]}, several at the top level separated by commas
 * ({@code a[1-2],b3}), zero padding kept, several bracket groups in one name expanded as a product
 * ({@code r[1-2]n[01-02]} is r1n01, r1n02, r2n01, r2n02).
 */
public final class Hostlist {
    /** The most names one hostlist may stand for. */
    public static final int MAX_NAMES = 100_000;
    /** The longest expression read (a flat list of 100 000 ten-character names fits). */
    public static final int MAX_CHARS = 1 << 20;
    /** The longest name (a DNS name is at most 253). */
    public static final int MAX_NAME = 255;

    private static final int MAX_DIGITS = 18;

    private Hostlist() {
    }

    /**
     * The names {@code expr} stands for, in its order, each once.
     *
     * @throws IllegalArgumentException with a one-line message quoting at most 40 characters of
     *         {@code expr}: empty, malformed, reversed range, more than {@link #MAX_NAMES} names
     */
    public static List<String> parse(String expr) {
        return HostlistParser.parse(expr);
    }

    /**
     * The shortest usual Slurm form of {@code names}, sorted: {@code gpu[001-003,070]}. Only a name's
     * trailing number is folded into a range; {@link #parse} gives the same names back.
     *
     * @throws IllegalArgumentException when a name is not a host name (empty, too long, characters
     *         other than letters, digits, '-', '.', '_')
     */
    public static String compress(Collection<String> names) {
        Map<String, Group> groups = new TreeMap<>(Hostlist::natural);
        for (String name : new TreeSet<>(names)) {
            HostlistParser.checkName(name);
            int cut = name.length();
            while (cut > 0 && Character.isDigit(name.charAt(cut - 1))) {
                cut--;
            }
            String digits = name.substring(cut);
            if (digits.isEmpty() || digits.length() > MAX_DIGITS) {
                groups.computeIfAbsent(name, p -> new Group()).literal = true;
            } else {
                groups.computeIfAbsent(name.substring(0, cut), p -> new Group()).numbers.add(new Num(Long.parseLong(digits), digits));
            }
        }
        StringBuilder out = new StringBuilder();
        groups.forEach((prefix, g) -> {
            if (g.literal) {
                append(out, prefix);
            }
            if (!g.numbers.isEmpty()) {
                append(out, prefix + g.render());
            }
        });
        return out.toString();
    }

    private static void append(StringBuilder out, String item) {
        if (!out.isEmpty()) {
            out.append(',');
        }
        out.append(item);
    }

    /** Names in the order a person counts: digit runs by their value ({@code r2n} before {@code r10n}), then as text. */
    static int natural(String x, String y) {
        int i = 0;
        int j = 0;
        while (i < x.length() && j < y.length()) {
            char a = x.charAt(i);
            char b = y.charAt(j);
            if (Character.isDigit(a) && Character.isDigit(b)) {
                int ei = digitsEnd(x, i);
                int ej = digitsEnd(y, j);
                String da = x.substring(i, ei).replaceFirst("^0+(?=.)", "");
                String db = y.substring(j, ej).replaceFirst("^0+(?=.)", "");
                int c = da.length() != db.length() ? Integer.compare(da.length(), db.length()) : da.compareTo(db);
                if (c != 0) {
                    return c;
                }
                i = ei;
                j = ej;
            } else if (a != b) {
                return Character.compare(a, b);
            } else {
                i++;
                j++;
            }
        }
        int c = Integer.compare(x.length() - i, y.length() - j);
        return c != 0 ? c : x.compareTo(y);
    }

    private static int digitsEnd(String s, int from) {
        int e = from;
        while (e < s.length() && Character.isDigit(s.charAt(e))) {
            e++;
        }
        return e;
    }

    /** {@code value} zero-padded to {@code width} digits (longer when the value needs it). */
    static String pad(long value, int width) {
        String s = Long.toString(value);
        return s.length() >= width ? s : "0".repeat(width - s.length()) + s;
    }

    private record Num(long value, String text) {
    }

    private static final class Group {
        boolean literal;
        final List<Num> numbers = new ArrayList<>();

        String render() {
            numbers.sort(Comparator.comparingLong(Num::value).thenComparingInt(n -> n.text().length()));
            if (numbers.size() == 1) {
                return numbers.get(0).text();
            }
            StringBuilder b = new StringBuilder("[");
            int i = 0;
            while (i < numbers.size()) {
                Num lo = numbers.get(i);
                int width = lo.text().length();
                int j = i;
                while (j + 1 < numbers.size() && numbers.get(j + 1).value() == numbers.get(j).value() + 1
                        && pad(numbers.get(j + 1).value(), width).equals(numbers.get(j + 1).text())) {
                    j++;
                }
                if (i > 0) {
                    b.append(',');
                }
                b.append(lo.text());
                if (j > i) {
                    b.append('-').append(numbers.get(j).text());
                }
                i = j + 1;
            }
            return b.append(']').toString();
        }
    }
}
