package io.fabricd.agent.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What is wrong with a configuration file, each problem with its line: collected so that one run
 * of fabricd names all of them, not one per attempt.
 */
final class ConfigProblems {
    private record Problem(int line, String text) {
    }

    /** A problem of the key at {@code pointer} ("/basic_auth_users/alice"), its line not yet known. */
    record At(String pointer, String text) {
    }

    private final List<Problem> problems = new ArrayList<>();

    /**
     * A problem in words; {@code text} already says its line where there is one ({@code line} 0:
     * none). Values it quotes are shortened and its control characters escaped ({@link ConfigText#clamp}).
     */
    void add(int line, String text) {
        problems.add(new Problem(line, ConfigText.clamp(text)));
    }

    /** A problem of a key, with the line {@code lines} gives it. */
    void add(At at, YamlLines lines) {
        int line = lines.line(at.pointer());
        add(line, at.text() + at(line));
    }

    /**
     * Runs {@code validate}, a check of values each of the right kind; its IllegalArgumentException
     * (the first value fabricd cannot use) becomes a problem on the line of the key it names.
     */
    void check(Runnable validate, YamlLines lines) {
        try {
            validate.run();
        } catch (IllegalArgumentException e) {
            int line = ConfigLoader.lineOf(e.getMessage(), lines);
            add(line, e.getMessage() + at(line));
        }
    }

    boolean isEmpty() {
        return problems.isEmpty();
    }

    /** " (line N)", or nothing for line 0. */
    static String at(int line) {
        return line > 0 ? " (line " + line + ")" : "";
    }

    /**
     * One problem: "{@code what} F: TEXT" ("config file F: TEXT"). Several: "config file F has N
     * errors:" and one line each, in the file's order.
     */
    IllegalArgumentException exception(String what, Path file) {
        List<Problem> sorted = problems.stream().sorted(Comparator.comparingInt(Problem::line)).toList();
        if (sorted.size() == 1) {
            return new IllegalArgumentException(what + " " + file + ": " + sorted.get(0).text());
        }
        StringBuilder sb = new StringBuilder(what + " " + file + " has " + sorted.size() + " errors:");
        for (Problem p : sorted) {
            sb.append(System.lineSeparator()).append("  ").append(p.text());
        }
        return new IllegalArgumentException(sb.toString());
    }
}
