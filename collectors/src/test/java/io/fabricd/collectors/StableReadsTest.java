package io.fabricd.collectors;

import io.fabricd.collectors.run.HostCollection;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.collectors.kernel.HostReadException;
import io.fabricd.collectors.source.CollectionRunner;
import io.fabricd.collectors.source.LiveHostSource;
import io.fabricd.collectors.source.SnapshotHostSource;
import io.fabricd.collectors.source.StableReads;
import io.fabricd.model.HostModel;
import io.fabricd.model.RdmaDevice;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hardware identity kept between collections ({@link StableReads}): fewer files read from the second
 * collection on, the same model as reading everything, counters and GIDs still fresh, and
 * everything read again after the refresh time or when a device comes or goes. On a live-reader
 * copy of a real fixture with a PCIe switch, a GPU and a ConnectX port.
 */
class StableReadsTest {
    static Path copy(Path tmp) throws Exception {
        return Fixtures.copy("host-d-topology", tmp);
    }

    /** A collection loop keeping facts for {@code refresh}, on a clock the test moves. */
    static HostCollection repeating(Duration refresh, AtomicLong now) {
        return new HostCollection(HostCollection.defaultCollectors(), CollectorConfig.DEFAULT, Clock.systemUTC(),
                new StableReads(refresh, now::get), CollectionRunner.CALLER);
    }

    static Path device(Path root) throws IOException {
        return root.resolve("sys/class/infiniband/mlx5_0").toRealPath();
    }

    @Test
    void keptFactsGiveTheSameModelFromFewerReadsAndCountersStayFresh(@TempDir Path tmp) throws Exception {
        Path root = copy(tmp);
        AtomicLong now = new AtomicLong();
        HostCollection repeating = repeating(Duration.ofMinutes(5), now);
        try (LiveHostSource live = new LiveHostSource(root, Duration.ofSeconds(2))) {
            CountingSource src = new CountingSource(live);
            HostModel first = repeating.collect(src);
            int firstReads = src.reads.size();
            src.reads.clear();
            Path counter = device(root).resolve("ports/1/counters/port_rcv_data");
            Files.writeString(counter, "123456789\n");
            HostModel second = repeating.collect(src);

            assertThat(src.reads.size()).as("files read by the second collection").isLessThan(firstReads * 3 / 4);
            assertThat(src.reads).noneMatch(p -> p.endsWith("/vendor") || p.endsWith("/fw_ver") || p.endsWith("/node_guid")
                    || p.endsWith("/max_link_speed"));
            assertThat(src.reads).anyMatch(p -> p.endsWith("/current_link_speed"));
            assertThat(second.devices().get(0).ports().get(0).counters()).containsEntry("port_rcv_data", 123456789L);

            HostModel everything = HostCollection.standard(CollectorConfig.DEFAULT).collect(live);
            assertThat(second.devices()).isEqualTo(everything.devices());
            assertThat(second.pci()).isEqualTo(everything.pci()).isEqualTo(first.pci()).isNotEmpty();
            assertThat(second.gpuNicPaths()).isEqualTo(everything.gpuNicPaths());
            assertThat(second.netdevs()).isEqualTo(everything.netdevs());
            assertThat(second.facts()).isEqualTo(everything.facts());
            assertThat(second.collectors()).extracting(r -> r.errors()).isEqualTo(everything.collectors().stream().map(r -> r.errors()).toList());
        }
    }

    @Test
    void factsAreReadAgainAfterTheRefreshTimeOrWhenADeviceComesOrGoes(@TempDir Path tmp) throws Exception {
        Path root = copy(tmp);
        AtomicLong now = new AtomicLong();
        HostCollection repeating = repeating(Duration.ofMinutes(5), now);
        Path fw = device(root).resolve("fw_ver");
        String before;
        try (LiveHostSource live = new LiveHostSource(root, Duration.ofSeconds(2))) {
            before = fwVer(repeating.collect(live));
            Files.writeString(fw, "28.99.9999\n"); // a firmware update
            now.addAndGet(Duration.ofMinutes(4).toNanos());
            assertThat(fwVer(repeating.collect(live))).as("kept within the refresh time").isEqualTo(before);
            now.addAndGet(Duration.ofMinutes(1).toNanos());
            assertThat(fwVer(repeating.collect(live))).as("read again after it").isEqualTo("28.99.9999");

            // a device that goes and comes back (a firmware reset re-probes it) is read afresh at once
            Files.writeString(fw, "28.11.1111\n");
            Path link = root.resolve("sys/class/infiniband/mlx5_0");
            Path target = Files.readSymbolicLink(link);
            Files.delete(link);
            assertThat(repeating.collect(live).devices()).isEmpty();
            Files.createSymbolicLink(link, target);
            assertThat(fwVer(repeating.collect(live))).isEqualTo("28.11.1111");
        }
        assertThat(before).isNotEqualTo("28.99.9999");
    }

    @Test
    void gidsAreReadEveryCollectionSoAFixedGidShowsAtOnce(@TempDir Path tmp) throws Exception {
        Path root = copy(tmp);
        AtomicLong now = new AtomicLong();
        HostCollection repeating = repeating(Duration.ofMinutes(5), now);
        Path port = device(root).resolve("ports/1");
        String gid0 = Files.readString(port.resolve("gids/0"));
        String zero = "0000:0000:0000:0000:0000:0000:0000:0000\n";
        try (LiveHostSource live = new LiveHostSource(root, Duration.ofSeconds(2))) {
            Files.writeString(port.resolve("gids/0"), zero); // the GID is missing (roce_gid_missing)
            assertThat(gids(repeating.collect(live))).isEmpty();

            Files.writeString(port.resolve("gids/0"), gid0); // fixed: shows at the next collection, not after the refresh
            assertThat(gids(repeating.collect(live))).containsExactly("0=" + gid0.strip());

            Files.writeString(port.resolve("gids/2"), "fe80:0000:0000:0000:a088:c203:00a1:2222\n"); // a new slot
            Files.writeString(port.resolve("gid_attrs/types/2"), "IB/RoCE v1\n");
            HostModel added = repeating.collect(live);
            assertThat(gids(added)).containsExactly("0=" + gid0.strip(), "2=fe80:0000:0000:0000:a088:c203:00a1:2222");
            assertThat(added.devices().get(0).ports().get(0).gids().get(1).type()).isEqualTo("IB/RoCE v1");

            Files.writeString(port.resolve("gids/0"), zero); // cleared: gone at once
            HostModel cleared = repeating.collect(live);
            assertThat(gids(cleared)).containsExactly("2=fe80:0000:0000:0000:a088:c203:00a1:2222");
            assertThat(cleared.devices()).isEqualTo(HostCollection.standard(CollectorConfig.DEFAULT).collect(live).devices());
        }
        assertThat(now.get()).as("all within one refresh").isZero();
    }

    private static List<String> gids(HostModel m) {
        return m.devices().get(0).ports().get(0).gids().stream().map(g -> g.index() + "=" + g.gid()).toList();
    }

    @Test
    void hostFactsFromAFixturesFilesAreReadOnce() {
        // a snapshot without the manifest's host block: kernel, memory and NUMA CPUs come from files
        HostCollection repeating = repeating(Duration.ofMinutes(5), new AtomicLong());
        CountingSource src = new CountingSource(SnapshotHostSource.open(Fixtures.host("host-a-ib")));
        HostModel first = repeating.collect(src);
        assertThat(src.reads).anyMatch(p -> p.endsWith("/cpulist"));
        assertThat(first.facts().numaCpus()).isNotEmpty();
        src.reads.clear();
        src.lists.clear();
        HostModel second = repeating.collect(src);
        assertThat(src.reads).noneMatch(p -> p.endsWith("/cpulist") || p.equals("proc/sys/kernel/osrelease"));
        assertThat(src.lists).doesNotContain("sys/devices/system/node");
        assertThat(second.facts()).isEqualTo(first.facts())
                .isEqualTo(HostCollection.standard(CollectorConfig.DEFAULT).collect(src).facts());
    }

    @Test
    void aPciFunctionThatComesDropsWhatWasKept(@TempDir Path tmp) throws Exception {
        Path root = copy(tmp);
        HostCollection repeating = repeating(Duration.ofMinutes(5), new AtomicLong());
        try (LiveHostSource live = new LiveHostSource(root, Duration.ofSeconds(2))) {
            CountingSource src = new CountingSource(live);
            repeating.collect(src);
            src.reads.clear();
            repeating.collect(src);
            assertThat(src.reads).noneMatch(p -> p.endsWith("/vendor"));
            Path devices = root.resolve("sys/bus/pci/devices");
            Files.createSymbolicLink(devices.resolve("0000:99:00.0"), Files.readSymbolicLink(devices.resolve("0000:16:00.0")));
            src.reads.clear();
            repeating.collect(src);
            assertThat(src.reads).as("the functions already there read afresh after a hot plug")
                    .contains("sys/bus/pci/devices/0000:16:00.0/vendor", "sys/bus/pci/devices/0000:15:01.0/vendor");
        }
    }

    @Test
    void aReadThatFailedForNowIsReadAgainNextCollectionAMissingFileIsKeptMissing(@TempDir Path tmp) throws Exception {
        Path root = copy(tmp);
        HostCollection repeating = repeating(Duration.ofMinutes(5), new AtomicLong());
        AtomicInteger failuresLeft = new AtomicInteger(1);
        try (LiveHostSource live = new LiveHostSource(root, Duration.ofSeconds(2))) {
            CountingSource src = new CountingSource(live) {
                @Override
                public String read(String path) throws HostReadException {
                    if (path.endsWith("/fw_ver") && failuresLeft.getAndDecrement() > 0) {
                        throw new HostReadException(path, "EIO"); // a firmware reset in progress
                    }
                    return super.read(path);
                }
            };
            HostModel first = repeating.collect(src);
            assertThat(first.devices().get(0).fwVer()).isNull();
            assertThat(first.collector("rdma").orElseThrow().errors()).anyMatch(e -> e.error().contains("EIO"));
            HostModel second = repeating.collect(src);
            assertThat(fwVer(second)).isNotBlank();
            assertThat(second.collector("rdma").orElseThrow().errors()).noneMatch(e -> e.error().contains("EIO"));

            // a file that is not there is kept as missing: not read again until the refresh
            src.reads.clear();
            repeating.collect(src);
            assertThat(src.reads).noneMatch(p -> p.endsWith("/board_id") || p.endsWith("/fw_ver"));
        }
    }

    @Test
    void zeroRefreshKeepsNothing(@TempDir Path tmp) throws Exception {
        Path root = copy(tmp);
        HostCollection repeating = repeating(Duration.ZERO, new AtomicLong());
        try (LiveHostSource live = new LiveHostSource(root, Duration.ofSeconds(2))) {
            CountingSource src = new CountingSource(live);
            repeating.collect(src);
            int firstReads = src.reads.size();
            src.reads.clear();
            repeating.collect(src);
            assertThat(src.reads).hasSize(firstReads);
        }
    }

    private static String fwVer(HostModel m) {
        return m.devices().stream().map(RdmaDevice::fwVer).findFirst().orElseThrow();
    }
}
