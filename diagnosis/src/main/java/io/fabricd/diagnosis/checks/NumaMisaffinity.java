package io.fabricd.diagnosis.checks;

import io.fabricd.model.GpuNicPath;
import io.fabricd.model.HostModel;
import io.fabricd.diagnosis.Check;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.model.finding.Evidence;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Subject;
import io.fabricd.model.finding.Severity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code numa_misaffinity} (warning): a GPU whose best path to any RDMA NIC is SYS — every transfer
 * crosses the CPU interconnect. A GPU whose paths are unknown (numa_node -1) gives no finding.
 */
public final class NumaMisaffinity extends Check.Declared {
    private static final List<String> ORDER = List.of("PIX", "PXB", "PHB", "NODE", "SYS");

    public NumaMisaffinity() {
        super("numa_misaffinity");
    }

    @Override
    public List<Finding> evaluate(Inputs in, DiagnosisConfig config) {
        HostModel m = in.current();
        Map<String, List<GpuNicPath>> byGpu = new TreeMap<>();
        m.gpuNicPaths().forEach(p -> byGpu.computeIfAbsent(p.gpu(), k -> new ArrayList<>()).add(p));
        List<Finding> out = new ArrayList<>();
        byGpu.forEach((gpu, paths) -> {
            if (paths.stream().anyMatch(p -> p.path() == null)) {
                return; // unknown: never a warning
            }
            String best = paths.stream().map(GpuNicPath::path).min((a, b) -> ORDER.indexOf(a) - ORDER.indexOf(b)).orElse(null);
            if (!"SYS".equals(best)) {
                return;
            }
            Evidence.Builder evidence = Evidence.builder();
            paths.forEach(p -> evidence.put(p.device(), p.path() + " (" + p.reason() + ")"));
            out.add(new Finding(id(), Severity.WARNING, Subject.gpu(gpu),
                    "GPU " + gpu + " reaches every RDMA NIC only across the CPU interconnect (SYS)", evidence,
                    "Move the GPU or a NIC so they share a NUMA node (ideally a PCIe switch), or keep jobs on this GPU off "
                            + "inter-node traffic; confirm with `nvidia-smi topo -m`."));
        });
        return out;
    }
}
