package io.fabricd.gate;

import io.fabricd.model.OneLine;

/**
 * A node's reason as the exclude list carries it to the scripts that drain or cordon nodes, which
 * make it Slurm's drain reason (sinfo -R, scontrol show node): one line, tabs and control characters
 * as spaces, at most {@link #MAX} characters, cut after a whole word with "...". The JSON verdict
 * keeps the whole reason.
 */
final class DrainReason {
    /** The longest reason written, "..." included: what the Slurm prolog passes on whole. */
    static final int MAX = 200;

    private DrainReason() {
    }

    static String of(String reason) {
        return OneLine.of(reason.replaceAll("\\p{Cntrl}", " "), MAX - "...".length());
    }
}
