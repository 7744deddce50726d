package io.fabricd.model.topology;

import java.util.regex.Pattern;

/**
 * What a node, switch or domain name may be: 1 to 253 characters of letters, digits and
 * {@code . _ - : /} (a switch port such as "Ethernet1/1", a node's FQDN), starting with a letter or a
 * digit. Anything else (a blank, a quote, a control character, an empty label value) is refused where
 * it is read, with where it was read.
 */
public final class Names {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:/-]{0,252}");

    private Names() {
    }

    public static boolean valid(String s) {
        return s != null && NAME.matcher(s).matches();
    }

    /**
     * A possibly hostile value for a message: quoted, at most 64 characters, with control characters and
     * the invisible ones that reorder or hide text (U+202E right-to-left override, line separators) escaped.
     */
    public static String quoted(String s) {
        if (s == null) {
            return "nothing";
        }
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < s.length() && i < 64; i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c == 0x7f || c == '"' || c == '\\') {
                b.append(String.format("\\x%02x", (int) c));
            } else if (c >= 0x7f && (Character.isISOControl(c) || hidden(c))) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append(s.length() > 64 ? "...\"" : "\"").toString();
    }

    private static boolean hidden(char c) {
        int t = Character.getType(c);
        return t == Character.FORMAT || t == Character.LINE_SEPARATOR || t == Character.PARAGRAPH_SEPARATOR
                || t == Character.SURROGATE || t == Character.PRIVATE_USE || t == Character.UNASSIGNED;
    }
}
