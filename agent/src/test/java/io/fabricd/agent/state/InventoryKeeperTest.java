package io.fabricd.agent.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.collectors.CollectorConfig;
import io.fabricd.collectors.Fixtures;
import io.fabricd.collectors.run.HostCollection;
import io.fabricd.collectors.source.SnapshotHostSource;
import io.fabricd.diagnosis.inventory.Inventory;
import io.fabricd.model.HostModel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Comparator;
import java.util.stream.Stream;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The agent's inventory across collections and restarts: never forgotten, never written through a link. */
class InventoryKeeperTest {
    static HostModel model(Path root, int minute) {
        return HostCollection.standard(CollectorConfig.DEFAULT).collect(SnapshotHostSource.open(root))
                .withCollectedAt(Instant.parse("2026-11-02T00:00:00Z").plusSeconds(60L * minute));
    }

    static void removeDevice(Path root, String name) throws Exception {
        Path link = root.resolve("sys/class/infiniband/" + name);
        Path real = link.toRealPath();
        Files.delete(link);
        try (Stream<Path> s = Files.walk(real)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    @Test
    void aRestartedAgentStillExpectsWhatVanishedWhileItWasDown(@TempDir Path tmp) throws Exception {
        Path root = Fixtures.copy("host-f-big", tmp.resolve("h"));
        InventoryStore store = new InventoryStore(tmp.resolve("state"));
        Inventory first = new InventoryKeeper(store).observe(model(root, 0));
        assertThat(first.devices()).hasSize(16);
        assertThat(store.load()).contains(first);
        removeDevice(root, "mlx5_6");
        Inventory after = new InventoryKeeper(store).observe(model(root, 5));
        assertThat(after.devices()).extracting(Inventory.Device::name).contains("mlx5_6");
    }

    @Test
    void anUnreadableFileIsMovedAsideAndTheInventoryInMemoryKept(@TempDir Path tmp) throws Exception {
        Path root = Fixtures.copy("host-f-big", tmp.resolve("h"));
        InventoryStore store = new InventoryStore(tmp.resolve("state"));
        InventoryKeeper keeper = new InventoryKeeper(store);
        keeper.observe(model(root, 0));
        removeDevice(root, "mlx5_9");
        Files.writeString(store.file(), ""); // an editor's truncation
        Inventory kept = keeper.observe(model(root, 1));
        assertThat(kept.devices()).extracting(Inventory.Device::name).contains("mlx5_9");
        try (Stream<Path> s = Files.list(store.dir())) {
            assertThat(s.map(p -> p.getFileName().toString())).anyMatch(n -> n.startsWith("inventory.json.unreadable-"));
        }
        // and written back whole
        assertThat(store.load().orElseThrow().devices()).extracting(Inventory.Device::name).contains("mlx5_9");
    }

    @Test
    void aFolderNamedLikeTheFileNeitherResetsTheInventoryNorFloods(@TempDir Path tmp) throws Exception {
        Path root = Fixtures.copy("host-a-ib", tmp.resolve("h"));
        InventoryStore store = new InventoryStore(tmp.resolve("state"));
        Files.createDirectories(store.file().resolve("x")); // cannot be moved aside once the folder is read-only
        store.dir().toFile().setWritable(false);
        try {
            InventoryKeeper keeper = new InventoryKeeper(store);
            Inventory a = keeper.observe(model(root, 0));
            Inventory b = keeper.observe(model(root, 1));
            Inventory c = keeper.observe(model(root, 2));
            assertThat(b).isSameAs(a);
            assertThat(c).isSameAs(a);
        } finally {
            store.dir().toFile().setWritable(true);
        }
    }

    @Test
    void anotherHostsInventoryIsMovedAsideNotJudged(@TempDir Path tmp) throws Exception {
        InventoryStore store = new InventoryStore(tmp.resolve("state"));
        store.save(Inventory.of(model(Fixtures.host("host-f-big"), 0), Instant.parse("2026-11-01T00:00:00Z"), Inventory.ACCEPTED));
        Inventory mine = new InventoryKeeper(store).observe(model(Fixtures.host("host-a-ib"), 1));
        assertThat(mine.host()).isEqualTo("dgx-h100-01");
        assertThat(mine.devices()).hasSize(1);
        assertThat(store.load().orElseThrow().host()).isEqualTo("dgx-h100-01");
    }

    @Test
    void anAcceptWhileTheAgentRunsIsPickedUp(@TempDir Path tmp) throws Exception {
        Path root = Fixtures.copy("host-f-big", tmp.resolve("h"));
        InventoryStore store = new InventoryStore(tmp.resolve("state"));
        InventoryKeeper keeper = new InventoryKeeper(store);
        keeper.observe(model(root, 0));
        removeDevice(root, "mlx5_2");
        HostModel without = model(root, 1);
        assertThat(keeper.observe(without).devices()).hasSize(16);
        Thread.sleep(20); // a new modification time
        store.locked(() -> {
            store.save(Inventory.of(without, Instant.parse("2026-11-02T00:01:00Z"), Inventory.ACCEPTED));
            return null;
        });
        Inventory accepted = keeper.observe(model(root, 2));
        assertThat(accepted.origin()).isEqualTo(Inventory.ACCEPTED);
        assertThat(accepted.devices()).hasSize(15);
    }

    @Test
    void aStateFolderBehindALinkIsRefusedForReadingAndWriting(@TempDir Path tmp) throws Exception {
        Path real = Files.createDirectories(tmp.resolve("real/state"));
        Path link = Files.createSymbolicLink(tmp.resolve("link"), tmp.resolve("real"));
        InventoryStore store = new InventoryStore(link.resolve("state"));
        Assertions.assertThatThrownBy(() -> store.save(Inventory.of(model(Fixtures.host("host-a-ib"), 0),
                Instant.now(), Inventory.ACCEPTED))).hasMessageContaining("symbolic link");
        Assertions.assertThatThrownBy(store::load).hasMessageContaining("symbolic link");
        assertThat(real).isEmptyDirectory();
        // the agent keeps it in memory and goes on
        assertThat(new InventoryKeeper(store).observe(model(Fixtures.host("host-a-ib"), 0)).devices()).hasSize(1);
        assertThat(real).isEmptyDirectory();
    }
}
