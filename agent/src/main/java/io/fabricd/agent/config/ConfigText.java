package io.fabricd.agent.config;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A configuration file's text, bounded before anything parses it, and the words errors quote it
 * with. A configuration is a few KB: a file of megabytes, or one value of thousands of characters,
 * is a mistake or an attack, and parsing it (or echoing it) would cost seconds and screens.
 */
final class ConfigText {
    /** The most a configuration file (--config, --web.config.file) may hold. */
    static final int MAX_FILE_BYTES = 256 * 1024;
    /** The most characters one key or value of such a file may have. */
    static final int MAX_SCALAR_CHARS = 4096;
    /** The most characters of a value an error quotes. */
    static final int QUOTED_CHARS = 40;
    /** The longest problem line: beyond it the middle is cut (a value echoed somewhere unquoted). */
    private static final int MAX_PROBLEM_CHARS = 400;
    /** A value in quotes: "'...'", not an apostrophe inside a word ("fabricd's"). */
    private static final Pattern QUOTED = Pattern.compile("(?<![\\p{L}\\p{N}])'([^']*)'(?![\\p{L}\\p{N}])");

    private ConfigText() {
    }

    /**
     * The file's text as UTF-8, once it is a readable regular file ({@link ConfigLoader#checkReadableFile}):
     * at most {@link #MAX_FILE_BYTES} + 1 bytes are read, whatever its size says (a file growing
     * meanwhile, a file of /proc that says 0), and a larger one is refused.
     */
    static String read(String what, Path file) {
        ConfigLoader.checkReadableFile(what, file);
        byte[] bytes;
        try (InputStream in = Files.newInputStream(file)) {
            bytes = in.readNBytes(MAX_FILE_BYTES + 1);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + what + " " + file + ": " + reason(e));
        }
        if (bytes.length > MAX_FILE_BYTES) {
            throw new IllegalArgumentException(what + " " + file + " is larger than " + MAX_FILE_BYTES / 1024
                    + " KiB, more than a configuration can be: is it the right file?");
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("cannot read " + what + " " + file + ": not UTF-8 text");
        }
    }

    static String reason(IOException e) {
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        return e.getMessage() == null ? "read error" : e.getMessage();
    }

    /** A value as an error quotes it: "'...'", at most {@link #QUOTED_CHARS} characters and "…", controls escaped. */
    static String quote(Object value) {
        return "'" + shorten(String.valueOf(value)) + "'";
    }

    /** At most {@link #QUOTED_CHARS} characters of {@code s} and "…", its control characters escaped. */
    static String shorten(String s) {
        String t = s.length() > QUOTED_CHARS ? s.substring(0, QUOTED_CHARS) : s;
        return escape(t) + (t.length() < s.length() ? "…" : "");
    }

    /** Control characters as \r, \n, \t or \\uXXXX: an error stays one line and prints nothing a terminal acts on. */
    static String escape(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\r' -> sb.append("\\r");
                case '\n' -> sb.append("\\n");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (Character.isISOControl(c) || c == '\u2028' || c == '\u2029') {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.toString();
    }

    /**
     * A problem line as it is shown, whoever wrote it (fabricd's modules say "'VALUE' is not ..."):
     * each quoted value shortened, control characters escaped, and a line still too long (a value
     * echoed without quotes) cut in the middle, keeping its end, which says the line.
     */
    static String clamp(String problem) {
        Matcher m = QUOTED.matcher(problem);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(sb, Matcher.quoteReplacement(m.group(1).length() > QUOTED_CHARS ? quote(m.group(1)) : m.group()));
        }
        m.appendTail(sb);
        String s = escape(sb.toString());
        if (s.length() <= MAX_PROBLEM_CHARS) {
            return s;
        }
        int tail = 60;
        return s.substring(0, MAX_PROBLEM_CHARS - tail - 1) + "…" + s.substring(s.length() - tail);
    }
}
