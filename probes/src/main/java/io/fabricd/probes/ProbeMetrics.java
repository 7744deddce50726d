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
 * The probe families (interfaces.md): {@code fabric_probe_rtt_seconds} and
 * {@code fabric_probe_host_seconds} (classic histograms, 2 µs to ~1 s), {@code fabric_probe_duplicated_total},
 * {@code fabric_probe_reordered_total}, {@code fabric_probe_sent_total}, {@code fabric_probe_lost_total}, {@code fabric_probe_late_total}
 * with labels peer, peer_rack, transport, size (bounded by the plan: series of peers that leave it
 * are removed), and the responder's {@code fabric_probe_responder_answered_total} and
 * {@code fabric_probe_responder_dropped_total{reason}} (unauthenticated, malformed, rate_limited).
 */
public final class ProbeMetrics {
    static final String[] LABELS = {"peer", "peer_rack", "transport", "size"};
    private final Histogram rtt;
    private final Histogram host;
    private final Counter duplicated;
    private final Counter reordered;
    private final Counter sent;
    private final Counter lost;
    private final Counter late;

    public ProbeMetrics(PrometheusRegistry registry, ResponderStats responder) {
        // 2 µs to ~1 s: a fabric's round trip is a few µs, congestion adds tens, a WAN hop milliseconds
        rtt = Histogram.builder().name("fabric_probe_rtt_seconds")
                .help("Round-trip time of answered probes, the responder's hold time taken out (where the kernel stamps "
                        + "arrivals, from just before the send to the answer's arrival at the socket).")
                .labelNames(LABELS).classicOnly().classicExponentialUpperBounds(2e-6, 2, 20).register(registry);
        host = Histogram.builder().name("fabric_probe_host_seconds")
                .help("The hosts' own share of an answered probe's round trip, apart from fabric_probe_rtt_seconds: the "
                        + "responder's hold time and, where the kernel stamps arrivals, the time until the requester read the answer.")
                .labelNames(LABELS).classicOnly().classicExponentialUpperBounds(2e-6, 2, 20).register(registry);
        duplicated = Counter.builder().name("fabric_probe_duplicated")
                .help("Answers that came again for a probe already answered (counted once, not in the RTTs twice).")
                .labelNames(LABELS).register(registry);
        reordered = Counter.builder().name("fabric_probe_reordered")
                .help("Answers that arrived after the answer to a later probe (still answered, not lost).").labelNames(LABELS)
                .register(registry);
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
        duplicated.labelValues(l).inc(r.duplicated());
        reordered.labelValues(l).inc(r.reordered());
        var h = rtt.labelValues(l);
        for (long ns : r.rttNanos()) {
            h.observe(ns / 1e9);
        }
        if (r.hostNanos() != null) {
            var o = host.labelValues(l);
            for (long ns : r.hostNanos()) {
                o.observe(ns / 1e9);
            }
        }
    }

    /** Drops the series of peers no longer planned. */
    public void retain(Set<String> peers) {
        Function<List<String>, Boolean> gone = labels -> !peers.contains(labels.get(0));
        rtt.removeIf(gone);
        host.removeIf(gone);
        duplicated.removeIf(gone);
        reordered.removeIf(gone);
        sent.removeIf(gone);
        lost.removeIf(gone);
        late.removeIf(gone);
    }
}
