package io.fabricd.preflight;

import io.fabricd.model.OneLine;
import java.util.List;

/** How the gate's reasons write numbers, names and what the agents said: one line each, bounded. */
final class Texts {
    /**
     * The most characters taken of a text an agent sent (a summary, a remediation, a why): room for
     * the longest of fabricd's own (a remediation of about 600), so that a reason in the JSON is
     * whole; a bound all the same against an agent that sends pages.
     */
    static final int MAX_TEXT = 1000;
    private static final int MAX_LISTED = 5;

    private Texts() {
    }

    /** {@code 12 %}, {@code 0.5 %}, {@code 0 %}. */
    static String percent(double ratio) {
        double v = ratio * 100;
        if (v == 0) {
            return "0 %";
        }
        return (v >= 9.95 ? Long.toString(Math.round(v)) : tenths(v)) + " %";
    }

    /** {@code 31 µs}, {@code 12.3 ms}. */
    static String time(double seconds) {
        double us = seconds * 1e6;
        return us < 10_000 ? Math.round(us) + " µs" : tenths(us / 1000) + " ms";
    }

    /**
     * Three significant digits in Gb/s from 1 Gb/s up ({@code 400 Gb/s}, {@code 12.3 Gb/s},
     * {@code 9.96 Gb/s}), in Mb/s below ({@code 431 Mb/s}, {@code 4.31 Mb/s}).
     */
    static String rate(double bitsPerSecond) {
        double mb = bitsPerSecond / 1e6;
        return Math.round(mb) >= 1000 ? threeDigits(bitsPerSecond / 1e9) + " Gb/s" : threeDigits(mb) + " Mb/s";
    }

    private static String threeDigits(double v) {
        if (Math.round(v * 10) >= 1000) {
            return Long.toString(Math.round(v));
        }
        if (Math.round(v * 100) >= 1000) {
            return tenths(v);
        }
        long h = Math.round(v * 100);
        return h / 100 + "." + (h % 100 < 10 ? "0" : "") + h % 100;
    }

    /** One decimal, without String.format's cost (a verdict has a few per link, and a set up to 100 000 links). */
    private static String tenths(double v) {
        long t = Math.round(v * 10);
        return t / 10 + "." + t % 10;
    }

    /**
     * An agent's text on one line ({@link OneLine}: control characters as '?', at most
     * {@link #MAX_TEXT} characters) without an end stop, to go inside a reason.
     */
    static String line(String s) {
        String t = OneLine.of(s, MAX_TEXT);
        int end = t.length();
        while (end > 0 && t.charAt(end - 1) == '.') {
            end--;
        }
        return t.substring(0, end).strip();
    }

    /** {@code a, b, c} or {@code a, b, c, d, e and 3 more}. */
    static String names(List<String> names) {
        if (names.size() <= MAX_LISTED) {
            return String.join(", ", names);
        }
        return String.join(", ", names.subList(0, MAX_LISTED)) + " and " + (names.size() - MAX_LISTED) + " more";
    }

    static String link(String a, String b) {
        return "link " + a + "<->" + b;
    }
}
