package io.fabricd.agent.loop;

import io.fabricd.agent.state.InventoryKeeper;
import io.fabricd.agent.state.InventoryStore;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.diagnosis.inventory.Inventory;
import io.fabricd.diagnosis.run.Diagnosis;
import io.fabricd.diagnosis.run.Report;
import io.fabricd.exporters.FabricMetrics;
import io.fabricd.model.HostModel;
import io.fabricd.model.probe.ProbeResults;
import io.fabricd.model.topology.Placement;
import java.util.function.Predicate;

/**
 * What the agent makes of each collection, in order: the host's expected inventory grown (and kept
 * in the state folder), every check against the previous collection and the inventory, and the
 * Prometheus families replaced. The collection loop runs it after each collection; the alert
 * scenario suite runs the same object over a timeline of host snapshots, so what it replays into
 * the alert rules is what an agent serves. Used by one thread at a time.
 */
public final class Judgement {
    private final InventoryKeeper inventory;
    private final DiagnosisConfig diagnosis;
    private final FabricMetrics metrics;
    private final Predicate<String> deviceSelected;
    private HostModel previous;

    /**
     * @param store          where the inventory is kept; null: in memory only
     * @param deviceSelected the devices the configuration collects (rdma.include_devices and
     *                       exclude_devices): an inventory accepted under another configuration
     *                       expects none of the others
     */
    public Judgement(InventoryStore store, DiagnosisConfig diagnosis, FabricMetrics metrics, Predicate<String> deviceSelected) {
        this.inventory = new InventoryKeeper(store);
        this.diagnosis = diagnosis;
        this.metrics = metrics;
        this.deviceSelected = deviceSelected;
    }

    /**
     * Judges {@code m} (with what the probes measured lately and where the site's topology places the
     * host, null when unknown) and publishes its families.
     */
    public Report apply(HostModel m, ProbeResults probes, Placement declared) {
        Inventory inv = inventory.observe(m).selected(deviceSelected);
        Report report = Diagnosis.run(m, previous, inv, probes, declared, diagnosis);
        metrics.update(m, report.findings(), report.notJudged(), inv);
        previous = m;
        return report;
    }
}
