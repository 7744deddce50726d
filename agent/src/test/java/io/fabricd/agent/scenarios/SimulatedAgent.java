package io.fabricd.agent.scenarios;

import io.fabricd.agent.config.AgentConfig;
import io.fabricd.agent.loop.Judgement;
import io.fabricd.agent.state.InventoryStore;
import io.fabricd.collectors.run.HostCollection;
import io.fabricd.collectors.source.CollectionRunner;
import io.fabricd.collectors.source.SnapshotHostSource;
import io.fabricd.diagnosis.run.Report;
import io.fabricd.exporters.Exposition;
import io.fabricd.exporters.FabricMetrics;
import io.fabricd.model.HostModel;
import io.fabricd.model.probe.ProbeResults;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An agent process over a {@link ScenarioHost}: the agent's own collection ({@link HostCollection}
 * as {@code fabricd run} builds it) and {@link Judgement} (inventory in a state folder, checks
 * against the previous collection, the families), dated by the scenario's clock. A restart is a new
 * process: no previous collection, the inventory from the state folder. While it is stopped (a
 * reboot, a crash) Prometheus' scrape of it fails.
 */
final class SimulatedAgent {
    private final ScenarioHost host;
    private final Path stateDir;
    private final AgentConfig config;
    private HostCollection collection;
    private Judgement judgement;
    private FabricMetrics metrics;
    private long startedAt;
    private boolean collected;
    private Report last;

    SimulatedAgent(ScenarioHost host, Path stateDir, AgentConfig config) {
        this.host = host;
        this.stateDir = stateDir;
        this.config = config;
    }

    void start(Instant at) {
        collection = HostCollection.repeating(config.collectorConfig(), config.collection().identityRefresh(), CollectionRunner.CALLER);
        metrics = new FabricMetrics(false);
        judgement = new Judgement(new InventoryStore(stateDir), config.diagnosis(), metrics, name -> true);
        startedAt = at.getEpochSecond();
        collected = false;
    }

    void stop() {
        collection = null;
        judgement = null;
    }

    boolean running() {
        return judgement != null;
    }

    Report lastReport() {
        return last;
    }

    /** One collection at {@code at}: what the next scrapes serve. */
    void collect(Instant at) {
        HostModel m = collection.collect(SnapshotHostSource.open(host.root())).withCollectedAt(at);
        last = judgement.apply(m, ProbeResults.NONE, null);
        collected = true;
    }

    /** A scrape of the last collection (not ready before the first): series to value, as Prometheus would store them. */
    Map<String, Double> scrape() {
        String text = new String(Exposition.render(metrics.collect(), null).body(), StandardCharsets.UTF_8);
        Map<String, Double> out = new LinkedHashMap<>(TextFormat.parse(text));
        // what the agent's own registry adds beside the host's families (Micrometer and client_java)
        out.put("fabric_agent_ready{}", collected ? 1.0 : 0.0);
        out.put("fabric_agent_collection_running_seconds{}", 0.0);
        out.put("process_start_time_seconds{}", (double) startedAt);
        return out;
    }
}
