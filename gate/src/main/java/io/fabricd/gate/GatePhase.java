package io.fabricd.gate;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonValue;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What one phase of a gate run did: the progress line it said, and the same in figures for a script
 * reading the JSON report (docs/preflight.md, "Output").
 *
 * @param planned  what the phase set out to do: agents to ask (state), pairs to probe (the rounds), tests to run (bandwidth)
 * @param done     how many of those got what they needed (an answer, enough probes, a measured test)
 * @param attempts how many times the phase asked the agents (a probe round asks again for the pairs still short)
 * @param problems the first {@link #MAX_PROBLEMS} different problems met, one line each, who first
 * @param summary  the progress line, as said on stderr
 * @param elapsedSeconds the run's time when the phase ended
 */
@JsonPropertyOrder({"phase", "status", "planned", "done", "attempts", "problems", "summary", "elapsed_seconds"})
public record GatePhase(Kind phase, Status status, int planned, int done, int attempts, List<String> problems, String summary,
                        @JsonProperty("elapsed_seconds") double elapsedSeconds) {
    /** Problems kept per phase. */
    static final int MAX_PROBLEMS = 5;

    /** The phases, in the order they run. */
    public enum Kind {
        STATE, PROBE_ROUND, BANDWIDTH, REPAIR_ROUND;

        @JsonValue
        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** complete: everything planned got what it needed; partial: not all of it; skipped: not run (the summary says why). */
    public enum Status {
        COMPLETE, PARTIAL, SKIPPED;

        @JsonValue
        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The problems a phase meets: the first {@link #MAX_PROBLEMS} different ones kept, all counted. */
    static final class Problems {
        private final Set<String> kept = new LinkedHashSet<>();
        private int count;

        /** One problem, one line: who, then what. */
        void add(String problem) {
            count++;
            if (kept.size() < MAX_PROBLEMS) {
                kept.add(Texts.line(problem));
            }
        }

        /** How many were met, repeats included. */
        int count() {
            return count;
        }

        List<String> list() {
            return List.copyOf(kept);
        }

        /** " (first)" for a summary line, "" when none. */
        String first() {
            return kept.isEmpty() ? "" : " (" + kept.iterator().next() + ")";
        }
    }

    public GatePhase {
        problems = List.copyOf(problems);
    }

    /** A phase that ran: complete when {@code done} reached {@code planned}. */
    static GatePhase ran(Kind phase, int planned, int done, int attempts, List<String> problems, String summary) {
        return new GatePhase(phase, done >= planned ? Status.COMPLETE : Status.PARTIAL, planned, done, attempts, problems, summary, 0);
    }

    /** A phase that did not run, {@code summary} saying why. */
    static GatePhase skipped(Kind phase, int planned, String summary) {
        return new GatePhase(phase, Status.SKIPPED, planned, 0, 0, List.of(), summary, 0);
    }

    /** This phase ended {@code elapsed} into the run. */
    GatePhase at(Duration elapsed) {
        return new GatePhase(phase, status, planned, done, attempts, problems, summary, Math.round(elapsed.toMillis() / 10.0) / 100.0);
    }
}
