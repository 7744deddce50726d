package io.fabricd.collectors.pcie;

import io.fabricd.model.PcieConfig;
import java.util.Comparator;
import java.util.List;

/** The pcie stage's slice: the decoded config registers of the functions whose config was read, by address. */
public record PcieSlice(List<PcieConfig> configs) {
    public PcieSlice {
        configs = configs.stream().sorted(Comparator.comparing(PcieConfig::address)).toList();
    }
}
