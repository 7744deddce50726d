package io.fabricd.model;

/**
 * Text that came from elsewhere (a peer's answer, a parser's message, a value a user gave) made fit
 * for a one-line message: stripped, cut to a bound ("..." after the cut) and every control
 * character shown as '?', so that it can neither break a line nor run on.
 */
public final class OneLine {
    /** The usual bound, in characters. */
    public static final int MAX = 200;

    private OneLine() {
    }

    /** {@link #of(String, int)} with at most {@link #MAX} characters. */
    public static String of(String s) {
        return of(s, MAX);
    }

    /** {@code s} stripped, at most {@code max} characters and "...", control characters as '?'; "" for null. */
    public static String of(String s, int max) {
        if (s == null) {
            return "";
        }
        String t = s.strip();
        boolean cut = t.length() > max;
        int n = cut ? max : t.length();
        StringBuilder b = new StringBuilder(n + 3);
        for (int i = 0; i < n; i++) {
            char c = t.charAt(i);
            b.append(Character.isISOControl(c) ? '?' : c);
        }
        return cut ? b.append("...").toString() : b.toString();
    }
}
