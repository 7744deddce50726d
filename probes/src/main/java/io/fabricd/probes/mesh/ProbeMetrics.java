package io.fabricd.probes.mesh;

import io.fabricd.model.metrics.MetricFamily;
import io.fabricd.model.metrics.ProbingMetrics;
import io.fabricd.probes.ProbeResult;
import io.fabricd.probes.responder.ResponderStats;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The probe families (interfaces.md): {@code fabric_probe_rtt_seconds} and
 * {@code fabric_probe_host_seconds} (classic histograms, 2 µs to ~1 s), {@code fabric_probe_duplicated_total},
 * {@code fabric_probe_reordered_total}, {@code fabric_probe_sent_total}, {@code fabric_probe_lost_total}, {@code fabric_probe_late_total}
 * with labels peer, peer_rack, transport, size (bounded by the plan: series of peers that leave it
 * are removed), and the responder's {@code fabric_probe_responder_answered_total},
 * {@code fabric_probe_responder_hold_seconds} (the same buckets) and
 * {@code fabric_probe_responder_dropped_total{reason}} (unauthenticated, malformed, rate_limited).
 */
public final class ProbeMetrics {
    static final String[] LABELS = labels(ProbingMetrics.SENT);
    /** The histograms' labels by default: per peer rack, not per peer (cardinality, docs/probes.md). */
    static final String[] RACK_LABELS = labels(ProbingMetrics.RTT);
    /** The quantiles of the recent round trips exported per peer. */
    static final double[] QUANTILES = {0.5, 0.99};
    /**
     * How many of a peer's latest round trips its recent quantiles are computed over: 4m16s at the
     * default 10 probes per peer and size every 10 s, shorter than the latency alerts' hold, so that
     * one slow round has left them before the hold ends (docs/alerts.md, "Time to page").
     */
    static final int RECENT = 256;
    private final boolean perPeerHistograms;
    /** peer labels -> its latest RTTs. */
    private final Map<List<String>, Ring> recent = new ConcurrentHashMap<>();

    /** The latest {@link #RECENT} round trips of one peer (ns); guarded by itself. */
    private static final class Ring {
        final long[] values = new long[RECENT];
        int next;
        int filled;

        synchronized void add(long ns) {
            values[next] = ns;
            next = (next + 1) % values.length;
            filled = Math.min(filled + 1, values.length);
        }

        synchronized long[] sorted() {
            long[] s = Arrays.copyOf(values, filled);
            Arrays.sort(s);
            return s;
        }
    }
    private final Histogram rtt;
    private final Histogram host;
    private final Counter duplicated;
    private final Counter reordered;
    private final Counter sent;
    private final Counter lost;
    private final Counter late;

    /**
     * @param perPeerHistograms the RTT histograms per peer (probe.per_peer_histograms: 46 series per
     *                          peer and size) instead of per peer rack
     */
    public ProbeMetrics(PrometheusRegistry registry, ResponderStats responder, boolean perPeerHistograms) {
        this.perPeerHistograms = perPeerHistograms;
        String[] histogramLabels = perPeerHistograms ? LABELS : RACK_LABELS;
        rtt = histogram(ProbingMetrics.RTT, histogramLabels, registry);
        host = histogram(ProbingMetrics.HOST, histogramLabels, registry);
        GaugeWithCallback.builder().name(ProbingMetrics.RTT_RECENT.name()).help(ProbingMetrics.RTT_RECENT.help()).unit(SECONDS)
                .labelNames(labels(ProbingMetrics.RTT_RECENT))
                .callback(cb -> recent.forEach((labels, ring) -> {
                    long[] sorted = ring.sorted();
                    if (sorted.length == 0) {
                        return;
                    }
                    for (double q : QUANTILES) {
                        cb.call(ProbeResult.quantile(sorted, q), labels.get(0), labels.get(1), labels.get(2), labels.get(3),
                                q == 0.5 ? "0.5" : "0.99");
                    }
                })).register(registry);
        duplicated = counter(ProbingMetrics.DUPLICATED, registry);
        reordered = counter(ProbingMetrics.REORDERED, registry);
        sent = counter(ProbingMetrics.SENT, registry);
        lost = counter(ProbingMetrics.LOST, registry);
        late = counter(ProbingMetrics.LATE, registry);
        if (responder != null) {
            Histogram hold = histogram(ProbingMetrics.RESPONDER_HOLD, new String[0], registry);
            responder.onHold(ns -> hold.observe(ns / 1e9));
            CounterWithCallback.builder().name(ProbingMetrics.RESPONDER_ANSWERED.name()).help(ProbingMetrics.RESPONDER_ANSWERED.help())
                    .callback(cb -> cb.call(responder.answeredCount())).register(registry);
            GaugeWithCallback.builder().name(ProbingMetrics.RESPONDER_PEER_SOCKETS.name())
                    .help(ProbingMetrics.RESPONDER_PEER_SOCKETS.help())
                    .callback(cb -> cb.call(responder.peerSocketCount())).register(registry);
            CounterWithCallback.builder().name(ProbingMetrics.RESPONDER_DROPPED.name()).help(ProbingMetrics.RESPONDER_DROPPED.help())
                    .labelNames(labels(ProbingMetrics.RESPONDER_DROPPED)).callback(cb -> {
                        for (String r : new String[] {"unauthenticated", "malformed", "rate_limited", "overflow", "stale", "replayed"}) {
                            cb.call(responder.droppedCount(r), r);
                        }
                    }).register(registry);
        }
    }

    private static final Unit SECONDS = new Unit(ProbingMetrics.RTT.unit());

    private static String[] labels(MetricFamily f) {
        return f.labels().toArray(String[]::new);
    }

    /** 2 µs to ~1 s: a fabric's round trip is a few µs, congestion adds tens, a WAN hop milliseconds. */
    private static Histogram histogram(MetricFamily f, String[] labels, PrometheusRegistry registry) {
        return Histogram.builder().name(f.name()).help(f.help()).unit(SECONDS).labelNames(labels).classicOnly()
                .classicExponentialUpperBounds(2e-6, 2, 20).register(registry);
    }

    private static Counter counter(MetricFamily f, PrometheusRegistry registry) {
        return Counter.builder().name(f.name()).help(f.help()).labelNames(labels(f)).register(registry);
    }

    public void record(ProbeResult r, String peerRack) {
        String[] l = {r.peer(), peerRack == null ? "" : peerRack, r.transport(), Integer.toString(r.size())};
        // every series of the peer exists before the first is counted: a scrape between two
        // increments sees lost_total 0 beside sent_total, never sent_total alone
        var sentSeries = sent.labelValues(l);
        var lostSeries = lost.labelValues(l);
        var lateSeries = late.labelValues(l);
        var duplicatedSeries = duplicated.labelValues(l);
        var reorderedSeries = reordered.labelValues(l);
        sentSeries.inc(r.sent());
        lostSeries.inc(r.lost());
        lateSeries.inc(r.late());
        duplicatedSeries.inc(r.duplicated());
        reorderedSeries.inc(r.reordered());
        String[] hl = perPeerHistograms ? l : new String[] {l[1], l[2], l[3]};
        observe(rtt, hl, r.rttNanos());
        remember(List.of(l), r.rttNanos());
        if (r.hostNanos() != null) {
            observe(host, hl, r.hostNanos());
        }
    }

    private static void observe(Histogram h, String[] labels, long[] nanos) {
        var series = h.labelValues(labels);
        for (long ns : nanos) {
            series.observe(ns / 1e9);
        }
    }

    /** Keeps a peer's latest round trips in its ring. */
    private void remember(List<String> labels, long[] rtts) {
        if (rtts.length == 0) {
            return;
        }
        Ring ring = recent.computeIfAbsent(labels, k -> new Ring());
        for (long ns : rtts) {
            ring.add(ns);
        }
    }

    /** Drops the series of peers no longer planned. */
    public void retain(Set<String> peers) {
        Function<List<String>, Boolean> gone = labels -> !peers.contains(labels.get(0));
        if (perPeerHistograms) {
            rtt.removeIf(gone);
            host.removeIf(gone);
        }
        recent.keySet().removeIf(labels -> !peers.contains(labels.get(0)));
        duplicated.removeIf(gone);
        reordered.removeIf(gone);
        sent.removeIf(gone);
        lost.removeIf(gone);
        late.removeIf(gone);
    }
}
