package io.fabricd.agent.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabricd.collectors.Fixtures;
import io.fabricd.diagnosis.inventory.Inventory;
import io.fabricd.diagnosis.inventory.InventoryFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A write of the inventory that fails midway (a full disk, a file size limit) leaves the old file and nothing else. */
class InventoryStoreTest {
    private static Inventory big() {
        return Inventory.of(InventoryKeeperTest.model(Fixtures.host("host-f-big"), 0), Instant.parse("2026-11-02T00:00:00Z"),
                Inventory.ACCEPTED);
    }

    private static Inventory small() {
        return Inventory.of(InventoryKeeperTest.model(Fixtures.host("host-a-ib"), 0), Instant.parse("2026-11-02T00:00:00Z"),
                Inventory.LEARNED);
    }

    private static List<String> names(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void aFullDiskLeavesTheOldFileAndNoTemporaryOne(@TempDir Path tmp) throws Exception {
        Path small = Files.createDirectory(tmp.resolve("small"));
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", small.toString())
                .redirectErrorStream(true).start();
        mount.getInputStream().readAllBytes();
        assumeTrue(mount.waitFor(30, TimeUnit.SECONDS) && mount.exitValue() == 0, "a tmpfs can be mounted (root with CAP_SYS_ADMIN)");
        try {
            InventoryStore store = new InventoryStore(small.resolve("state"));
            store.save(small());
            String before = Files.readString(store.file());
            assertThat(InventoryFile.write(big()).getBytes(StandardCharsets.UTF_8).length).isGreaterThan(4096);
            // all but one page taken: the new file's first page is written, then ENOSPC
            Files.write(small.resolve("filler"), new byte[(int) Files.getFileStore(small).getUsableSpace() - 4096]);
            assertThatThrownBy(() -> store.save(big())).isInstanceOf(IOException.class).hasMessageContaining("No space left on device");
            assertThat(names(store.dir())).containsExactly("inventory.json").as("no temporary file left");
            assertThat(Files.readString(store.file())).isEqualTo(before);
        } finally {
            new ProcessBuilder("umount", small.toString()).inheritIO().start().waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aWriteOverTheFileSizeLimitLeavesNoTemporaryFile(@TempDir Path tmp) throws Exception {
        Path state = tmp.resolve("state");
        InventoryStore store = new InventoryStore(state);
        store.save(small());
        String before = Files.readString(store.file());
        // a process whose files may not grow past 2 KiB (RLIMIT_FSIZE; the JVM ignores SIGXFSZ, so write(2) fails with EFBIG)
        String java = ProcessHandle.current().info().command().orElse("java");
        Process p = new ProcessBuilder("sh", "-c", "ulimit -f 4 && exec \"$0\" -XX:-UsePerfData -cp \"$1\" \"$2\" \"$3\"", java,
                System.getProperty("java.class.path"), SaveBig.class.getName(), state.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(out).contains("not saved: ").containsIgnoringCase("file too large");
        assertThat(names(state)).containsExactly("inventory.json").as("no temporary file left");
        assertThat(Files.readString(store.file())).isEqualTo(before);
    }

    /** Saves the big host's inventory in the folder {@code args[0]}, saying whether it could. */
    public static final class SaveBig {
        public static void main(String[] args) {
            try {
                new InventoryStore(Path.of(args[0])).save(big());
                System.out.println("saved");
            } catch (IOException e) {
                System.out.println("not saved: " + e.getMessage());
            }
        }
    }
}
