package io.fabricd.diagnosis;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A rate threshold: events per second. Written as {@code 120/h}, {@code 5/m}, {@code 10/s} or a
 * plain number per second; {@code 0} means any increase.
 */
public record Rate(double perSecond, String text) {
    private static final Pattern P = Pattern.compile("^(\\d+(?:\\.\\d+)?)\\s*(?:/\\s*(s|m|h|min|hour|second))?$");

    @JsonCreator
    public static Rate parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("a rate is required (like 120/h, 5/m, 10/s or 0)");
        }
        Matcher m = P.matcher(text.strip().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a rate (like 120/h, 5/m, 10/s or 0)");
        }
        double v = Double.parseDouble(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        double div = switch (unit) {
            case "m", "min" -> 60;
            case "h", "hour" -> 3600;
            default -> 1;
        };
        return new Rate(v / div, text.strip());
    }

    /** A plain number in YAML: events per second. */
    @JsonCreator
    public static Rate of(double perSecond) {
        if (perSecond < 0 || Double.isNaN(perSecond)) {
            throw new IllegalArgumentException("a rate cannot be negative");
        }
        return new Rate(perSecond, perSecond == Math.rint(perSecond) ? Long.toString((long) perSecond) : Double.toString(perSecond));
    }

    @JsonValue
    @Override
    public String text() {
        return text;
    }

    /** True when {@code delta} events over {@code seconds} are above this threshold. */
    public boolean exceeded(double delta, double seconds) {
        return delta > 0 && delta / seconds > perSecond;
    }
}
