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

    private final List<Problem> problems = new ArrayList<>();

    /** A problem in words; {@code text} already says its line where there is one ({@code line} 0: none). */
    void add(int line, String text) {
        problems.add(new Problem(line, text));
    }

    boolean isEmpty() {
        return problems.isEmpty();
    }

    /** " (line N)", or nothing for line 0. */
    static String at(int line) {
        return line > 0 ? " (line " + line + ")" : "";
    }

    /**
     * One problem: "config file F: TEXT". Several: "config file F has N errors:" and one line each,
     * in the file's order.
     */
    IllegalArgumentException exception(Path file) {
        List<Problem> sorted = problems.stream().sorted(Comparator.comparingInt(Problem::line)).toList();
        if (sorted.size() == 1) {
            return new IllegalArgumentException("config file " + file + ": " + sorted.get(0).text());
        }
        StringBuilder sb = new StringBuilder("config file " + file + " has " + sorted.size() + " errors:");
        for (Problem p : sorted) {
            sb.append(System.lineSeparator()).append("  ").append(p.text());
        }
        return new IllegalArgumentException(sb.toString());
    }
}
