package io.fabricd.diagnosis;

import io.fabricd.diagnosis.inventory.Inventory;
import io.fabricd.model.HostModel;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.NotJudged;
import io.fabricd.model.probe.ProbeResults;
import io.fabricd.model.topology.Placement;
import java.util.List;
import java.util.Objects;

/**
 * One check: an id of interfaces.md, what it reads, and its verdict on a host. Adding a check is
 * adding one class and listing it in {@code run.Diagnosis.CHECKS}.
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
     * Whether this check's findings say why other checks could not judge subjects, and how to let
     * them ({@code pcie_config_blind}): the text report shows its info findings beside the
     * not-judged list instead of folding them with the other info findings.
     */
    default boolean explainsNotJudged() {
        return false;
    }

    /**
     * What a check judges.
     *
     * @param current   the latest collection
     * @param previous  the collection before it, of the same host and strictly earlier; null when none
     * @param inventory the host's expected inventory (what it had and which ports were up); null when
     *                  none is known (a one-shot run without a state folder)
     * @param probes    what the agent's probes measured lately ({@link ProbeResults#NONE} without probes;
     *                  null is taken as that)
     * @param declared  where the site's topology places the host (docs/topology.md); null when unknown
     */
    record Inputs(HostModel current, HostModel previous, Inventory inventory, ProbeResults probes, Placement declared) {
        public Inputs {
            Objects.requireNonNull(current, "current");
            probes = probes == null ? ProbeResults.NONE : probes;
        }
    }

    /** The verdict on {@code in}, with the thresholds and expectations of {@code config} (never null). */
    List<Finding> evaluate(Inputs in, DiagnosisConfig config);

    /**
     * The subjects {@link #evaluate} could not judge on {@code in}, and why (gone, blind, malformed):
     * what it skipped because a value it reads was not there to read. The report lists them in one
     * place ({@code not_judged}, fabric_check_not_judged); a check that judges everything it sees has none.
     */
    default List<NotJudged> notJudged(Inputs in, DiagnosisConfig config) {
        return List.of();
    }

    /** A check whose id and use of history are given once, to its constructor. */
    abstract class Declared implements Check {
        private final String id;
        private final History history;

        protected Declared(String id, History history) {
            this.id = id;
            this.history = history;
        }

        protected Declared(String id) {
            this(id, History.NONE);
        }

        @Override
        public final String id() {
            return id;
        }

        @Override
        public final History history() {
            return history;
        }
    }
}
