package io.fabricd.model;

import java.util.List;

/**
 * How one collector did in one collection.
 *
 * @param ok       false only when the collector could not do its job at all (it threw, or its root
 *                 could not be listed); per-file failures are {@code errors}, and leave it ok
 * @param durationSeconds seconds spent (JSON {@code duration_seconds}, as diagnose's JSON has it)
 * @param errors   every path that failed, with its errno
 */
public record CollectorRun(String name, boolean ok, double durationSeconds, List<ReadError> errors) {
    public CollectorRun {
        errors = List.copyOf(errors);
    }
}
