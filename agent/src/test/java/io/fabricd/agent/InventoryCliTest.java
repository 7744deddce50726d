package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.agent.CliTest.Result;
import io.fabricd.agent.state.InventoryStore;
import io.fabricd.collectors.Fixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** `fabricd inventory accept|show`, and `diagnose` against the stored inventory. */
class InventoryCliTest {

    @Test
    void acceptShowAndDiagnoseAgainstTheStoredInventory(@TempDir Path tmp) throws Exception {
        Path host = Fixtures.copy("host-f-big", tmp.resolve("h"));
        Path state = tmp.resolve("state");
        Result accept = CliTest.run("inventory", "accept", "--root", host.toString(), "--state-dir", state.toString());
        assertThat(accept.code()).as(accept.err()).isZero();
        assertThat(accept.out()).contains("accepted " + state.resolve("inventory.json")).contains("16 RDMA devices")
                .contains("16 expected up");
        Result show = CliTest.run("inventory", "show", "--root", host.toString(), "--state-dir", state.toString());
        assertThat(show.code()).isZero();
        assertThat(show.out()).contains("mlx5_6 port 1 (ens4f0np0): expected up at 400 Gb/sec (4X NDR)")
                .contains("everything expected is present");
        assertThat(CliTest.run("diagnose", "--root", host.toString(), "--state-dir", state.toString()).code()).isZero();

        // the driver of mlx5_6 unbinds: the preflight fails, show says what is gone
        Path link = host.resolve("sys/class/infiniband/mlx5_6");
        Path real = link.toRealPath();
        Files.delete(link);
        try (var s = Files.walk(real)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
        Result diag = CliTest.run("diagnose", "--root", host.toString(), "--state-dir", state.toString());
        assertThat(diag.code()).isEqualTo(1);
        assertThat(diag.out()).contains("[hardware_missing] device=mlx5_6").contains("RDMA device mlx5_6");
        assertThat(CliTest.run("inventory", "show", "--root", host.toString(), "--state-dir", state.toString()).out())
                .contains("missing now:").contains("critical: RDMA device mlx5_6");
        // without the state folder nothing expects mlx5_6: the one-shot preflight cannot know
        assertThat(CliTest.run("diagnose", "--root", host.toString()).code()).isZero();

        // the card was removed on purpose: accept says what is no longer expected, then all passes
        Result again = CliTest.run("inventory", "accept", "--root", host.toString(), "--state-dir", state.toString());
        assertThat(again.out()).contains("no longer expected: RDMA device mlx5_6");
        assertThat(CliTest.run("diagnose", "--root", host.toString(), "--state-dir", state.toString()).code()).isZero();
        assertThat(CliTest.run("inventory", "show", "--format", "json", "--root", host.toString(), "--state-dir", state.toString())
                .out()).contains("\"origin\" : \"accepted\"").contains("\"missing\" : [ ]").doesNotContain("\"mlx5_6\"");
        // metrics reads the stored inventory too
        assertThat(CliTest.run("metrics", "--root", host.toString(), "--state-dir", state.toString()).out())
                .contains("fabric_inventory_present{device=\"mlx5_0\",item=\"rdma_device\"");
    }

    @Test
    void badStateIsAMessageNotAStackTrace(@TempDir Path tmp) throws Exception {
        Path host = Fixtures.host("host-a-ib");
        Result noDir = CliTest.run("inventory", "accept", "--root", host.toString());
        assertThat(noDir.code()).isEqualTo(2);
        assertThat(noDir.err()).contains("--state-dir").doesNotContain("\tat ");
        Result none = CliTest.run("inventory", "show", "--root", host.toString(), "--state-dir", tmp.toString());
        assertThat(none.code()).isEqualTo(2);
        assertThat(none.err()).contains("no inventory in " + tmp).contains("fabricd inventory accept");
        Files.writeString(tmp.resolve("inventory.json"), "{not json");
        Result corrupt = CliTest.run("inventory", "show", "--root", host.toString(), "--state-dir", tmp.toString());
        assertThat(corrupt.code()).isEqualTo(2);
        assertThat(corrupt.err()).contains("is not a fabricd inventory").doesNotContain("\tat ");
        // a preflight whose expectations cannot be read does not pass: exit 2 and what to do
        Result diag = CliTest.run("diagnose", "--root", host.toString(), "--state-dir", tmp.toString());
        assertThat(diag.code()).isEqualTo(2);
        assertThat(diag.err()).contains("is not a fabricd inventory: not JSON at line 1").contains("Move the file aside")
                .doesNotContain("\tat ").doesNotContain("io.fabricd");
        // a --state-dir without an inventory (a typo) is said, not silently ignored
        Result empty = CliTest.run("diagnose", "--root", host.toString(), "--state-dir", tmp.resolve("typo").toString());
        assertThat(empty.code()).isZero();
        assertThat(empty.err()).contains("no inventory in " + tmp.resolve("typo")).contains("not judged");
        // a state folder that is a link is refused, nothing written through it
        Path elsewhere = Files.createDirectories(tmp.resolve("elsewhere"));
        Path linked = Files.createSymbolicLink(tmp.resolve("linked"), elsewhere);
        Result viaLink = CliTest.run("inventory", "accept", "--root", host.toString(), "--state-dir", linked.toString());
        assertThat(viaLink.code()).isEqualTo(2);
        assertThat(viaLink.err()).contains("symbolic link");
        assertThat(elsewhere).isEmptyDirectory();
        assertThat(new InventoryStore(tmp.resolve("fresh")).load()).isEmpty();
    }
}
