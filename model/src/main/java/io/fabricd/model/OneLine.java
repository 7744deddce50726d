package io.fabricd.model;

/**
 * Text that came from elsewhere (a peer's answer, a parser's message, a value a user gave) made fit
 * for a one-line message: stripped, cut to a bound at a word ("..." after the cut) and every control
 * character shown as '?', so that it can neither break a line nor run on.
 */
public final class OneLine {
    /** The usual bound, in characters. */
    public static final int MAX = 200;
    /** Characters that end a cut text before its "...": a space, or punctuation that leads on. */
    private static final String LEADS_ON = ",;:-(/";

    private OneLine() {
    }

    /** {@link #of(String, int)} with at most {@link #MAX} characters. */
    public static String of(String s) {
        return of(s, MAX);
    }

    /**
     * {@code s} stripped, at most {@code max} characters and "...", control characters as '?'; ""
     * for null. A cut ends at the last space before the bound where there is one in the bound's
     * second half (a word is never split, unless it alone is that long), without the space or
     * punctuation before it.
     */
    public static String of(String s, int max) {
        if (s == null) {
            return "";
        }
        String t = s.strip();
        boolean cut = t.length() > max;
        int n = cut ? cutAt(t, max) : t.length();
        StringBuilder b = new StringBuilder(n + 3);
        for (int i = 0; i < n; i++) {
            char c = t.charAt(i);
            b.append(Character.isISOControl(c) ? '?' : c);
        }
        return cut ? b.append("...").toString() : b.toString();
    }

    /** Where to cut {@code t} (longer than {@code max}): at most {@code max}, after a whole word. */
    private static int cutAt(String t, int max) {
        int end = max;
        if (!Character.isWhitespace(t.charAt(max))) {
            int space = max - 1;
            while (space > max / 2 && !Character.isWhitespace(t.charAt(space))) {
                space--;
            }
            if (space > max / 2) {
                end = space;
            }
        }
        int words = end;
        while (end > 0 && (Character.isWhitespace(t.charAt(end - 1)) || LEADS_ON.indexOf(t.charAt(end - 1)) >= 0)) {
            end--;
        }
        return end > 0 ? end : words;
    }
}
