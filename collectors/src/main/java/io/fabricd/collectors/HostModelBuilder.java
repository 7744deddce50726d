package io.fabricd.collectors;

import io.fabricd.collectors.model.RdmaDevice;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** The part of a {@link io.fabricd.collectors.model.HostModel} collectors fill in; one per collection. */
public final class HostModelBuilder {
    private final List<RdmaDevice> devices = new ArrayList<>();

    public void addDevice(RdmaDevice d) {
        devices.add(d);
    }

    List<RdmaDevice> devices() {
        List<RdmaDevice> sorted = new ArrayList<>(devices);
        sorted.sort(Comparator.comparing(RdmaDevice::name));
        return sorted;
    }
}
