package io.fabricd.probes;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * The probe families (interfaces.md): {@code fabric_probe_rtt_seconds} (classic histogram, 25 µs to
 * ~1.6 s), {@code fabric_probe_sent_total}, {@code fabric_probe_lost_total}, {@code fabric_probe_late_total}
 * with labels peer, peer_rack, transport, size (bounded by the plan: series of peers that leave it
 * are removed), and the responder's {@code fabric_probe_responder_answered_total} and
 * {@code fabric_probe_responder_dropped_total{reason}} (unauthenticated, malformed, rate_limited).
 */
public final class ProbeMetrics {
    static final String[] LABELS = {"peer", "peer_rack", "transport", "size"};
    private final Histogram rtt;
    private final Counter sent;
    private final Counter lost;
    private final Counter late;

    public ProbeMetrics(PrometheusRegistry registry, ResponderStats responder) {
        rtt = Histogram.builder().name("fabric_probe_rtt_seconds").help("Round-trip time of answered probes.")
                .labelNames(LABELS).classicOnly().classicExponentialUpperBounds(25e-6, 2, 17).register(registry);
        sent = Counter.builder().name("fabric_probe_sent").help("Probes sent.").labelNames(LABELS).register(registry);
        lost = Counter.builder().name("fabric_probe_lost").help("Probes never answered.").labelNames(LABELS).register(registry);
        late = Counter.builder().name("fabric_probe_late")
                .help("Probes answered after the per-probe timeout (not lost, not in the RTT histogram).").labelNames(LABELS)
                .register(registry);
        if (responder != null) {
            CounterWithCallback.builder().name("fabric_probe_responder_answered")
                    .help("Probe requests this agent's responder answered.")
                    .callback(cb -> cb.call(responder.answeredCount())).register(registry);
            GaugeWithCallback.builder().name("fabric_probe_responder_peer_sockets")
                    .help("Known peers the UDP responder answers from a socket of their own (a flood at the probe port does not reach them).")
                    .callback(cb -> cb.call(responder.peerSocketCount())).register(registry);
            CounterWithCallback.builder().name("fabric_probe_responder_dropped")
                    .help("Probe requests this agent's responder dropped, by reason (unauthenticated, malformed, rate_limited; overflow: left to the kernel under a flood and dropped there; stale: a request sent over 30 s ago by the requester's clock; replayed: a request answered before; endpoint_unauthenticated: refused endpoint requests; endpoint_replayed: an endpoint request seen before).")
                    .labelNames("reason").callback(cb -> {
                        for (String r : new String[] {"unauthenticated", "malformed", "rate_limited", "overflow", "stale", "replayed", "endpoint_unauthenticated", "endpoint_replayed"}) {
                            cb.call(responder.droppedCount(r), r);
                        }
                    }).register(registry);
        }
    }

    public void record(ProbeResult r, String peerRack) {
        String[] l = {r.peer(), peerRack == null ? "" : peerRack, r.transport(), Integer.toString(r.size())};
        sent.labelValues(l).inc(r.sent());
        lost.labelValues(l).inc(r.lost());
        late.labelValues(l).inc(r.late());
        var h = rtt.labelValues(l);
        for (long ns : r.rttNanos()) {
            h.observe(ns / 1e9);
        }
    }

    /** Drops the series of peers no longer planned. */
    public void retain(Set<String> peers) {
        Function<List<String>, Boolean> gone = labels -> !peers.contains(labels.get(0));
        rtt.removeIf(gone);
        sent.removeIf(gone);
        lost.removeIf(gone);
        late.removeIf(gone);
    }
}
