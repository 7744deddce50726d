package io.fabricd.topology;

import java.util.ArrayList;
import java.util.List;

/**
 * A topology file's lines as its parsers read them: comments ("#" to the end of the line) and blank
 * lines gone, each with the number of the line it starts on. With {@code continuation} (Slurm's
 * rule), a line ending in an odd number of backslashes goes on on the next line, "\#" is a "#" that
 * starts no comment and "\\" is one backslash.
 */
final class SourceLines {
    /** One logical line: the number of its first physical line and its text, stripped. */
    record Line(int number, String text) {
    }

    private SourceLines() {
    }

    static List<Line> of(String text, boolean continuation) {
        List<Line> out = new ArrayList<>();
        String[] physical = text.split("\r?\n", -1);
        StringBuilder pending = new StringBuilder();
        int start = 0;
        for (int i = 0; i < physical.length; i++) {
            String raw = physical[i];
            if (pending.isEmpty()) {
                start = i + 1;
            }
            String code = continuation ? stripSlurmComment(raw) : stripComment(raw);
            if (continuation && endsContinued(code)) {
                pending.append(code.stripTrailing(), 0, code.stripTrailing().length() - 1);
                continue;
            }
            pending.append(code);
            String line = (continuation ? unescape(pending.toString()) : pending.toString()).strip();
            pending.setLength(0);
            if (!line.isEmpty()) {
                out.add(new Line(start, line));
            }
        }
        if (!pending.isEmpty()) { // the last line ended in a backslash
            String line = unescape(pending.toString()).strip();
            if (!line.isEmpty()) {
                out.add(new Line(start, line));
            }
        }
        return out;
    }

    private static String stripComment(String raw) {
        int hash = raw.indexOf('#');
        return hash < 0 ? raw : raw.substring(0, hash);
    }

    /** Up to the first "#" preceded by an even number of backslashes. */
    private static String stripSlurmComment(String raw) {
        int backslashes = 0;
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '#' && backslashes % 2 == 0) {
                return raw.substring(0, i);
            }
            backslashes = c == '\\' ? backslashes + 1 : 0;
        }
        return raw;
    }

    /** An odd number of backslashes at the end, blanks after them allowed. */
    private static boolean endsContinued(String code) {
        String s = code.stripTrailing();
        int n = 0;
        for (int i = s.length() - 1; i >= 0 && s.charAt(i) == '\\'; i--) {
            n++;
        }
        return n % 2 == 1;
    }

    /** "\x" is "x": "\#" a "#", "\\" a backslash. */
    private static String unescape(String s) {
        if (s.indexOf('\\') < 0) {
            return s;
        }
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length()) {
                i++;
                c = s.charAt(i);
            }
            b.append(c);
        }
        return b.toString();
    }
}
