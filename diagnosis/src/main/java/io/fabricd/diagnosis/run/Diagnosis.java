package io.fabricd.diagnosis.run;

import io.fabricd.diagnosis.Check;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.model.finding.Evidence;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.NotJudged;
import io.fabricd.model.finding.Severity;
import io.fabricd.model.finding.Subject;

import io.fabricd.diagnosis.checks.BandwidthLow;
import io.fabricd.diagnosis.checks.CounterSaturated;
import io.fabricd.diagnosis.checks.EcnDisabled;
import io.fabricd.diagnosis.checks.GlobalPauseWithPfc;
import io.fabricd.diagnosis.checks.GpuDirectOff;
import io.fabricd.diagnosis.checks.HardwareMissing;
import io.fabricd.diagnosis.checks.IommuTranslation;
import io.fabricd.diagnosis.checks.LinkDegraded;
import io.fabricd.diagnosis.checks.LinkDown;
import io.fabricd.diagnosis.checks.MtuMismatch;
import io.fabricd.diagnosis.checks.NeighborSpeedBelowHost;
import io.fabricd.diagnosis.checks.NumaMisaffinity;
import io.fabricd.diagnosis.checks.PathMtuMismatch;
import io.fabricd.diagnosis.checks.PauseStorm;
import io.fabricd.diagnosis.checks.PcieAcsRedirect;
import io.fabricd.diagnosis.checks.PcieConfigBlind;
import io.fabricd.diagnosis.checks.PcieDegraded;
import io.fabricd.diagnosis.checks.PcieMaxPayload;
import io.fabricd.diagnosis.checks.PcieMaxReadRequest;
import io.fabricd.diagnosis.checks.PcieRelaxedOrdering;
import io.fabricd.diagnosis.checks.PfcMissing;
import io.fabricd.diagnosis.checks.PortErrorsRising;
import io.fabricd.diagnosis.checks.ProbeLatency;
import io.fabricd.diagnosis.checks.ProbeLoss;
import io.fabricd.diagnosis.checks.QpPressure;
import io.fabricd.diagnosis.checks.RoceGidMissing;
import io.fabricd.diagnosis.checks.SwitchPauseMissing;
import io.fabricd.diagnosis.checks.SwitchPauseUnexpected;
import io.fabricd.diagnosis.checks.TopologyMismatch;
import io.fabricd.diagnosis.checks.TransportErrors;
import io.fabricd.diagnosis.checks.TrustMismatch;
import io.fabricd.diagnosis.inventory.Inventory;
import io.fabricd.model.HostModel;
import io.fabricd.model.probe.ProbeResults;
import io.fabricd.model.topology.Placement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/** Runs every check over a host model (and the previous one, for rates). */
public final class Diagnosis {
    /** Every check of interfaces.md: of the host, then of what the probes measured. */
    public static final List<Check> CHECKS = List.of(new LinkDown(), new LinkDegraded(), new PfcMissing(),
            new GlobalPauseWithPfc(), new EcnDisabled(), new TrustMismatch(), new MtuMismatch(), new RoceGidMissing(),
            new GpuDirectOff(), new NumaMisaffinity(), new PcieDegraded(), new CounterSaturated(), new PortErrorsRising(),
            new PauseStorm(), new QpPressure(), new TransportErrors(), new PcieAcsRedirect(), new IommuTranslation(),
            new PcieMaxReadRequest(), new PcieMaxPayload(), new PcieRelaxedOrdering(), new PcieConfigBlind(), new HardwareMissing(),
            new ProbeLoss(), new ProbeLatency(), new PathMtuMismatch(), new BandwidthLow(), new SwitchPauseUnexpected(),
            new SwitchPauseMissing(), new NeighborSpeedBelowHost(), new TopologyMismatch());

    private Diagnosis() {
    }

    public static List<String> checkIds() {
        return CHECKS.stream().map(Check::id).distinct().toList();
    }

    public static Report run(HostModel current, HostModel previous) {
        return run(current, previous, DiagnosisConfig.DEFAULT);
    }

    /**
     * @param previous the host's collection before {@code current}; ignored (as if none) when it is not
     *                 strictly earlier or is of another host
     */
    public static Report run(HostModel current, HostModel previous, DiagnosisConfig config) {
        return run(CHECKS, current, previous, null, ProbeResults.NONE, null, config);
    }

    /**
     * {@link #run(HostModel, HostModel, DiagnosisConfig)} against the host's expected inventory
     * (null: none known; link_down and hardware_missing then judge from the host alone).
     */
    public static Report run(HostModel current, HostModel previous, Inventory inventory, DiagnosisConfig config) {
        return run(CHECKS, current, previous, inventory, ProbeResults.NONE, null, config);
    }

    /** {@link #run(HostModel, HostModel, Inventory, DiagnosisConfig)} with what the agent's probes measured lately. */
    public static Report run(HostModel current, HostModel previous, Inventory inventory, ProbeResults probes, DiagnosisConfig config) {
        return run(CHECKS, current, previous, inventory, probes, null, config);
    }

    /**
     * {@link #run(HostModel, HostModel, Inventory, ProbeResults, DiagnosisConfig)} with where the site
     * says the host sits (null: unknown), which topology_mismatch holds against what the host's ports see.
     */
    public static Report run(HostModel current, HostModel previous, Inventory inventory, ProbeResults probes, Placement declared,
                             DiagnosisConfig config) {
        return run(CHECKS, current, previous, inventory, probes, declared, config);
    }

    static Report run(List<Check> checks, HostModel current, HostModel previous, Inventory inventory, ProbeResults probes,
                      Placement declared, DiagnosisConfig config) {
        if (previous != null && (!previous.collectedAt().isBefore(current.collectedAt())
                || !Objects.equals(previous.hostname(), current.hostname()))) {
            previous = null;
        }
        List<Finding> findings = new ArrayList<>();
        List<NotJudged> notJudged = new ArrayList<>();
        List<String> noHistory = new ArrayList<>();
        Check.Inputs in = new Check.Inputs(current, previous, inventory, probes, declared);
        for (Check c : checks) {
            if (!config.enabled(c.id())) {
                continue;
            }
            if (c.history() != Check.History.NONE && previous == null) {
                noHistory.add(c.id());
                if (c.history() == Check.History.REQUIRED) {
                    continue;
                }
            }
            try {
                findings.addAll(c.evaluate(in, config));
                notJudged.addAll(c.notJudged(in, config));
            } catch (RuntimeException | StackOverflowError e) {
                // a check's bug must not hide the other checks' findings: reported as a finding of its own
                findings.add(new Finding(c.id(), Severity.INFO, Subject.HOST, "check " + c.id() + " failed: " + e,
                        Evidence.NONE, "Report this as a fabricd bug with `fabricd snapshot` of the host."));
            }
        }
        findings.replaceAll(f -> SwitchPorts.named(f, current));
        findings.sort(Comparator.comparing(Finding::severity).thenComparing(Finding::check)
                .thenComparing(f -> f.subject().toString()));
        notJudged.sort(Comparator.comparing(NotJudged::check).thenComparing(n -> n.subject().toString()));
        return new Report(current, findings, noHistory, notJudged);
    }
}
