package io.fabricd.diagnosis;

import io.fabricd.model.finding.Finding;

import io.fabricd.model.HostModel;
import io.fabricd.diagnosis.inventory.Inventory;
import io.fabricd.model.probe.ProbeResults;
import java.util.List;

/**
 * One check: an id of interfaces.md, what it reads, and its verdict on a host. Adding a check is
 * adding one class and listing it in {@link Diagnosis#CHECKS}.
 *
 * <p>Checks that compare two collections say so: {@link History#REQUIRED} checks do not run
 * without the previous collection; {@link History#PARTIAL} checks judge what one collection shows
 * and add their rate verdicts when the previous collection is there.
 */
public interface Check {
    /** How a check uses the previous collection. */
    enum History { NONE, PARTIAL, REQUIRED }

    String id();

    default History history() {
        return History.NONE;
    }

    /**
     * @param current  the latest collection
     * @param previous the collection before it, of the same host and strictly earlier; null when none
     * @param config   thresholds and expectations (never null)
     */
    List<Finding> evaluate(HostModel current, HostModel previous, DiagnosisConfig config);

    /**
     * The verdict with the host's expected inventory (what it had and which ports were up); checks
     * that judge against it override this. {@code inventory} is null when none is known (a
     * one-shot run without a state folder).
     */
    default List<Finding> evaluate(HostModel current, HostModel previous, Inventory inventory, DiagnosisConfig config) {
        return evaluate(current, previous, config);
    }

    /**
     * The verdict with what the agent's probes measured lately ({@link ProbeResults#NONE} without
     * probes); the checks that judge probe results override this.
     */
    default List<Finding> evaluate(HostModel current, HostModel previous, Inventory inventory, ProbeResults probes,
                                   DiagnosisConfig config) {
        return evaluate(current, previous, inventory, config);
    }
}
