package io.fabricd.agent.config;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The rule for {@code http_server_config.headers}, the headers added to every answer: a name is an
 * RFC 9110 token, a value an RFC 9110 field value (visible characters, spaces and tabs inside, no
 * CR, LF or other control character, nothing around it), and headers that frame the message, act
 * between hops, or that fabricd sets itself are refused. What passes cannot split an answer, break
 * its framing or make the server throw.
 *
 * <p>exporter-toolkit allows only Strict-Transport-Security, X-Content-Type-Options (nosniff),
 * X-Frame-Options (deny, sameorigin), X-XSS-Protection and Content-Security-Policy; fabricd takes
 * any header this rule allows, so every file exporter-toolkit takes is taken here too.
 */
final class ResponseHeaders {
    /** Framing and hop-by-hop headers: the server writes them for each message. */
    private static final Set<String> FRAMING = Set.of("content-length", "transfer-encoding", "connection", "keep-alive", "upgrade",
            "te", "trailer", "proxy-connection", "host");
    /** Headers fabricd sets on its answers: a fixed value would break scrapes, compression or authentication. */
    private static final Set<String> OWN = Set.of("content-type", "content-encoding", "vary", "www-authenticate", "retry-after",
            "allow", "date");
    private static final String OWN_PREFIX = "x-fabricd-";
    private static final String TCHARS = "!#$%&'*+-.^_`|~";

    private ResponseHeaders() {
    }

    /** The first header of {@code headers} the rule refuses, or null. {@code at}: the mapping's pointer. */
    static ConfigProblems.At check(String at, Map<String, String> headers) {
        Map<String, String> seen = new HashMap<>();
        for (Map.Entry<String, String> h : headers.entrySet()) {
            String name = h.getKey();
            String key = YamlLines.child(at, name);
            String why = nameProblem(name);
            if (why != null) {
                return new ConfigProblems.At(key, "http_server_config.headers: " + ConfigText.quote(name) + " " + why);
            }
            String before = seen.putIfAbsent(name.toLowerCase(Locale.ROOT), name);
            if (before != null) {
                return new ConfigProblems.At(key, "http_server_config.headers: " + ConfigText.quote(name) + " and " + ConfigText.quote(before)
                        + " are one header (names ignore case); keep one");
            }
            why = valueProblem(h.getValue());
            if (why != null) {
                return new ConfigProblems.At(key, "http_server_config.headers: the value of " + ConfigText.quote(name) + " " + why);
            }
        }
        return null;
    }

    private static String nameProblem(String name) {
        if (name.isEmpty() || !name.chars().allMatch(ResponseHeaders::tchar)) {
            return "is not a header name (letters, digits and !#$%&'*+-.^_|~ only: no spaces, colons or control characters)";
        }
        String n = name.toLowerCase(Locale.ROOT);
        if (FRAMING.contains(n)) {
            return "cannot be set here: it frames the answer or acts between hops, and the server writes it itself";
        }
        if (OWN.contains(n) || n.startsWith(OWN_PREFIX)) {
            return "cannot be set here: fabricd sets it on its answers (scrapes, compression, authentication need its value)";
        }
        return null;
    }

    private static String valueProblem(String value) {
        if (value == null || value.isEmpty()) {
            return "is empty: give one, or leave the header out";
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c > 0xff) {
                return "has a character beyond Latin-1 (" + ConfigText.quote(String.valueOf(c)) + "): a header value is ASCII text";
            }
            if (c != ' ' && c != '\t' && (c < 0x21 || c == 0x7f)) {
                return "has a control character (CR, LF, NUL, ...): " + ConfigText.quote(value);
            }
        }
        char first = value.charAt(0);
        char last = value.charAt(value.length() - 1);
        if (first == ' ' || first == '\t' || last == ' ' || last == '\t') {
            return "starts or ends with a space or tab: " + ConfigText.quote(value);
        }
        return null;
    }

    private static boolean tchar(int c) {
        return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || TCHARS.indexOf(c) >= 0;
    }
}
