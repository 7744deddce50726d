package io.fabricd.probes.verbs;

import io.fabricd.natives.VerbsShim;
import io.fabricd.probes.ProbeKey;
import io.fabricd.probes.responder.ResponderAnswer;
import io.fabricd.probes.responder.ResponderBudget;
import io.fabricd.probes.responder.ResponderStats;
import io.fabricd.probes.responder.UdpResponder;
import java.io.IOException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Answers probe requests on one RDMA port's UD QP, like {@link UdpResponder}: authenticated,
 * rate-limited, counted, at once, from its own thread. The answer goes to the sender's address as
 * the completion and GRH give it (ibv_create_ah_from_wc: RoCE v1/v2 over IPv6 or IPv4, InfiniBand).
 */
public final class VerbsResponder implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(VerbsResponder.class.getName());
    private final VerbsUd ud;
    private final VerbsUd.Address address;
    private final ProbeKey key;
    private final ResponderBudget budget;
    private final ResponderStats stats;
    private final Thread thread;
    private volatile boolean closed;

    public VerbsResponder(VerbsShim shim, String device, int port, int gidIndex, ProbeKey key, double rate, int burst, int spinMicros,
                          ResponderStats stats) throws IOException {
        this.ud = new VerbsUd(shim, device, port, gidIndex, 4096, 256);
        ud.spin(spinMicros);
        this.address = ud.address();
        this.key = key;
        this.budget = new ResponderBudget(rate, burst);
        this.stats = stats;
        this.thread = new Thread(this::serve, "fabricd-probe-verbs-" + device);
        thread.setDaemon(true);
    }

    public VerbsResponder start() {
        thread.start();
        return this;
    }

    public VerbsUd.Address address() {
        return address;
    }

    private void serve() {
        byte[] buf = new byte[4096 + 64];
        while (!closed) {
            try {
                int n = ud.receive(buf, 200);
                if (n < 0) {
                    continue;
                }
                int size = ResponderAnswer.answer(buf, n, System.nanoTime(), key, budget, stats);
                if (size < 0) {
                    continue;
                }
                ud.reply(buf, size);
            } catch (IOException | RuntimeException e) {
                if (!closed) {
                    LOG.log(Level.FINE, "verbs responder: " + e.getMessage());
                }
            }
        }
        ud.close();
    }

    @Override
    public void close() {
        closed = true;
    }
}
