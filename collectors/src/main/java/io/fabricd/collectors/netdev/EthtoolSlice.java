package io.fabricd.collectors.netdev;

import io.fabricd.model.PauseParams;
import java.util.Map;

/** The ethtool stage's slice: driver statistics and pause parameters by netdev name. */
public record EthtoolSlice(Map<String, Stats> byNetdev) {
    public EthtoolSlice {
        byNetdev = Map.copyOf(byNetdev);
    }

    /** One netdev's statistics (empty when unknown) and pause parameters (null when unknown). */
    public record Stats(Map<String, Long> stats, PauseParams pause) {
    }
}
