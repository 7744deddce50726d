package io.fabricd.probes.bandwidth;

import io.fabricd.probes.bandwidth.BandwidthMessages.Start;
import java.io.IOException;
import java.time.Duration;
import java.util.logging.Logger;

/**
 * A test {@link BandwidthServer} serves now: its queue pairs and, where this side posts too, the
 * {@code worker} that receives the peer's SENDs or writes back; {@code moved} is what that did.
 */
final class BandwidthSession {
    private static final Logger LOG = Logger.getLogger(BandwidthServer.class.getName());

    final String id;
    final String client;
    final String device;
    final Start start;
    final BandwidthServer.QueuePairs rc;
    final long startedMillis;
    Thread worker;
    volatile VerbsRc.Moved moved;

    BandwidthSession(String id, String client, String device, Start start, BandwidthServer.QueuePairs rc, long startedMillis) {
        this.id = id;
        this.client = client;
        this.device = device;
        this.start = start;
        this.rc = rc;
        this.startedMillis = startedMillis;
    }

    void work(String what, IoWork w) {
        worker = new Thread(() -> {
            try {
                moved = w.run();
            } catch (IOException e) {
                LOG.warning("bandwidth test with " + client + ": " + what + " failed: " + e.getMessage());
            }
        }, "fabricd-bandwidth-" + what);
        worker.setDaemon(true);
        worker.start();
    }

    /** Stops the worker and waits for it (bounded), then frees the queue pairs. */
    void end(Duration wait) {
        rc.stopReceiving();
        if (worker != null) {
            try {
                worker.join(wait.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (worker.isAlive()) {
                // still in native code: freeing its queue pairs under it would crash the agent
                LOG.warning("bandwidth test with " + client + ": its " + worker.getName() + " thread did not end; queue pairs left open");
                return;
            }
        }
        rc.close();
    }

    /** What the worker does: receive the peer's SENDs, or write back. */
    interface IoWork {
        VerbsRc.Moved run() throws IOException;
    }
}
