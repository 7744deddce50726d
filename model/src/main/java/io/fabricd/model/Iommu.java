package io.fabricd.model;

import java.util.List;

/**
 * How the IOMMU handles DMA of the host's NICs and GPUs (docs/spec/host-facts.md §5): {@code /sys/class/iommu},
 * each function's {@code iommu_group} and the group's {@code type} (kernel 5.11 and later), and the
 * IOMMU arguments of the kernel command line.
 *
 * @param units   the IOMMU units ({@code dmar0}, {@code ivhd0}, ...); empty when the live host has
 *                none; null when unknown (a snapshot taken without the folder)
 * @param cmdline the IOMMU arguments of {@code /proc/cmdline} ({@code intel_iommu=}, {@code amd_iommu=},
 *                {@code iommu=}, {@code iommu.passthrough=}, {@code iommu.strict=}); null when it was not read
 * @param devices one per NIC and GPU function
 */
public record Iommu(List<String> units, List<String> cmdline, List<Device> devices) {
    public Iommu {
        units = units == null ? null : List.copyOf(units);
        cmdline = cmdline == null ? null : List.copyOf(cmdline);
        devices = List.copyOf(devices);
    }

    /**
     * @param group the IOMMU group ({@code iommu_group}'s target name); null when the function has none
     * @param type  the group's {@code type}: DMA, DMA-FQ (translated), identity (passthrough),
     *              blocked, unmanaged (a driver such as VFIO owns it); null when unknown
     */
    public record Device(String address, String kind, String group, String type) {
    }

    /**
     * The IOMMU's part in {@code d}'s DMA: "translated", "passthrough", "blocked", "unmanaged", "off"
     * (no group and the host's units are known), or null when fabricd cannot tell (a group without a
     * type file, units unknown).
     */
    public String mode(Device d) {
        if (d.group() == null) {
            return units == null ? null : "off";
        }
        if (d.type() == null) {
            return null;
        }
        return switch (d.type()) {
            case "DMA", "DMA-FQ" -> "translated";
            case "identity" -> "passthrough";
            case "blocked" -> "blocked";
            case "unmanaged" -> "unmanaged";
            default -> null;
        };
    }
}
