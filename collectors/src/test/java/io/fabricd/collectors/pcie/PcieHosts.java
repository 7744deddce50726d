package io.fabricd.collectors.pcie;

import io.fabricd.collectors.Fixtures;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * host-d-topology (a ConnectX-7 at 0000:19:00.0 below switch port 0000:17:01.0, a GPU at
 * 0000:18:00.0 below port 0000:17:00.0: PIX) with config spaces and IOMMU files grafted on. The
 * config spaces are pciutils' real dumps (real/README.md): the Intel 82576's
 * (pciutils-cap-pcie-2: MaxPayload 256 of 512, MaxReadReq 512, RlxdOrd+) stands in for the NIC's
 * and the GPU's, the Intel 5520 root port's (pciutils-cap-pcie-1: ACS capable, MaxPayload
 * supported 256) for every bridge; {@link #acs} sets the bridges' ACSCtl as lspci shows it on hosts
 * with ACS on.
 */
public final class PcieHosts {
    public static final String NIC = "0000:19:00.0";
    public static final String GPU = "0000:18:00.0";
    public static final String NIC_PORT = "0000:17:01.0";
    public static final String GPU_PORT = "0000:17:00.0";
    static final String[] BRIDGES = {"0000:15:01.0", "0000:16:00.0", GPU_PORT, NIC_PORT};
    private final Path root;

    private PcieHosts(Path root) {
        this.root = root;
    }

    /** A copy of host-d-topology in {@code dest} with every tracked function's config space. */
    public static PcieHosts topology(Path dest) {
        PcieHosts h = new PcieHosts(Fixtures.copy("host-d-topology", dest));
        byte[] endpoint = Fixtures.lspciDump("pciutils-cap-pcie-2.lspci-xxxx.txt");
        byte[] port = Fixtures.lspciDump("pciutils-cap-pcie-1.lspci-xxxx.txt");
        h.config(NIC, endpoint).config(GPU, endpoint);
        for (String b : BRIDGES) {
            h.config(b, port);
        }
        return h;
    }

    public Path root() {
        return root;
    }

    /** Writes {@code bytes} as the config of {@code bdf}. */
    public PcieHosts config(String bdf, byte[] bytes) {
        try {
            Files.write(root.resolve("sys/bus/pci/devices/" + bdf).toRealPath().resolve("config"), bytes);
            return this;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sets the ACS Control register (at 0x156 in the root port's dump) of bridge {@code bdf}. */
    public PcieHosts acs(String bdf, int control) {
        byte[] b = Fixtures.lspciDump("pciutils-cap-pcie-1.lspci-xxxx.txt");
        b[0x156] = (byte) control;
        b[0x157] = (byte) (control >> 8);
        return config(bdf, b);
    }

    /** Sets Device Control (at 0xa8 in the 82576's dump) of endpoint {@code bdf}. */
    public PcieHosts deviceControl(String bdf, int devctl) {
        byte[] b = Fixtures.lspciDump("pciutils-cap-pcie-2.lspci-xxxx.txt");
        b[0xa8] = (byte) devctl;
        b[0xa9] = (byte) (devctl >> 8);
        return config(bdf, b);
    }

    /** IOMMU units, a group of {@code type} for each of {@code bdfs}, and {@code cmdline} as /proc/cmdline. */
    public PcieHosts iommu(String cmdline, String type, String... bdfs) {
        try {
            Files.createDirectories(root.resolve("sys/class/iommu/dmar0"));
            Files.writeString(root.resolve("proc/cmdline"), cmdline + "\n");
            int group = 40;
            for (String bdf : bdfs) {
                Path g = root.resolve("sys/kernel/iommu_groups/" + group);
                Files.createDirectories(g);
                Files.writeString(g.resolve("type"), type + "\n");
                Path dev = root.resolve("sys/bus/pci/devices/" + bdf).toRealPath();
                Files.createSymbolicLink(dev.resolve("iommu_group"), dev.relativize(g));
                group++;
            }
            return this;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
