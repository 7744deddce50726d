package io.fabricd.bench;

import io.fabricd.collectors.CollectorConfig;
import io.fabricd.collectors.Fixtures;
import io.fabricd.collectors.kernel.EthtoolStats;
import io.fabricd.collectors.rdma.RdmaCollector;
import io.fabricd.collectors.run.HostCollection;
import io.fabricd.collectors.source.CollectionRunner;
import io.fabricd.collectors.source.LiveHostSource;
import io.fabricd.collectors.source.SnapshotHostSource;
import io.fabricd.collectors.source.StableReads;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.diagnosis.run.Diagnosis;
import io.fabricd.diagnosis.run.Report;
import io.fabricd.exporters.Exposition;
import io.fabricd.exporters.FabricMetrics;
import io.fabricd.model.Counters;
import io.fabricd.model.HostModel;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The hot paths of one collection, on the committed fixtures: reading and parsing a port
 * (the RDMA collector alone over a one-port host), a whole collection that keeps the hardware
 * identity, the checks, building the families and rendering them. Run from the repository root:
 *
 * <pre>
 *   mvn -B -q -DskipTests install &amp;&amp; java -jar bench/jmh/target/benchmarks.jar -f 1
 * </pre>
 *
 * The forks run with bin/fabricd's JVM flags (Serial GC, C1 only, small heap), so the numbers are
 * what the agent pays.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-XX:+UseSerialGC", "-Xms16m", "-Xmx96m", "-Xmn3m", "-XX:MinHeapFreeRatio=25",
        "-XX:MaxHeapFreeRatio=50", "-XX:TieredStopAtLevel=1"})
public class HotPaths {
    /** A fixture folder under collectors/src/test/fixtures. */
    @Param({"host-a-ib", "host-f-big"})
    public String host;

    private SnapshotHostSource source;
    private LiveHostSource live;
    private HostCollection liveRepeating;
    private HostCollection rdmaOnly;
    private HostCollection repeating;
    private HostModel model;
    private Report report;
    private MetricSnapshots families;
    private String ethtool;
    private String[] counterTexts;

    @Setup
    public void setUp() throws IOException {
        Path fixtures = Fixtures.dir();
        source = SnapshotHostSource.open(fixtures.resolve(host));
        rdmaOnly = new HostCollection(List.of(new RdmaCollector()), CollectorConfig.DEFAULT, Clock.systemUTC());
        repeating = HostCollection.repeating(CollectorConfig.DEFAULT, StableReads.DEFAULT_REFRESH, CollectionRunner.CALLER);
        model = repeating.collect(source);
        live = new LiveHostSource(fixtures.resolve(host), Duration.ofSeconds(2));
        liveRepeating = HostCollection.repeating(CollectorConfig.DEFAULT, StableReads.DEFAULT_REFRESH, live.runner());
        report = Diagnosis.run(model, null, DiagnosisConfig.DEFAULT);
        families = FabricMetrics.build(model, false, report.findings());
        Path big = fixtures.resolve("host-f-big/fabricd/ethtool/ens1f0np0.txt");
        ethtool = Files.readString(big);
        counterTexts = new String[] {"0\n", "18446744073709551615\n", "24543663075294\n", "65535\n", "not a counter\n"};
    }

    /** Lists, reads and parses every RDMA device and port (counters, hw_counters, GIDs) of the host. */
    @Benchmark
    public HostModel readAndParsePorts() {
        return rdmaOnly.collect(source);
    }

    /** Every collector, as the agent's loop runs them (identity kept between collections). */
    @Benchmark
    public HostModel collectHost() {
        return repeating.collect(source);
    }

    /**
     * The same collection over the same files with a live host's semantics ({@code LiveHostSource}
     * over the fixture folder: reads bounded in time by its reader thread, files kept open as the
     * agent keeps them): what a collection of that host costs the running agent.
     */
    @Benchmark
    public HostModel collectHostLive() {
        return liveRepeating.collect(live);
    }

    @Benchmark
    public Report runChecks() {
        return Diagnosis.run(model, model, DiagnosisConfig.DEFAULT);
    }

    /** The Prometheus families of one collection, built once per collection by the agent. */
    @Benchmark
    public MetricSnapshots buildFamilies() {
        FabricMetrics m = new FabricMetrics();
        m.update(model, report.findings());
        return m.collect();
    }

    /** Building those families and rendering them as text (the agent builds once per collection, renders per scrape). */
    @Benchmark
    public int buildAndRenderText() {
        return FabricMetrics.text(model, false, report.findings()).length;
    }

    /** The same families as client_java snapshots (as for a name[] filter). */
    @Benchmark
    public MetricSnapshots buildSnapshots() {
        return FabricMetrics.build(model, false, report.findings());
    }

    /** The agent's writer over those snapshots (Exposition, TextWriter; the agent copies the body out of its buffer too). */
    @Benchmark
    public int renderText() {
        return Exposition.render(families, null).body().length;
    }

    /** client_java's text writer over the same snapshots, for comparison. */
    @Benchmark
    public int renderTextClientJava() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64 * 1024);
        PrometheusTextFormatWriter.builder().setIncludeCreatedTimestamps(false).build().write(out, families);
        return out.size();
    }

    /** Parsing one ethtool -S side-car of a ConnectX-7 (~300 statistics). */
    @Benchmark
    public EthtoolStats parseEthtool() {
        return EthtoolStats.parse(ethtool, new int[1]);
    }

    @Benchmark
    public long parseCounters() {
        long sum = 0;
        for (String t : counterTexts) {
            Long v = Counters.parse(t);
            sum += v == null ? 0 : v;
        }
        return sum;
    }
}
