package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** `--config FILE` as the command line reports it: every problem at once, each with its line, in words. */
class ConfigCliTest {
    private static CliTest.Result metrics(Path cfg) {
        return CliTest.run("metrics", "--demo", "--config", cfg.toString());
    }

    /** Exit 2, no Java in the message. */
    private static String refused(CliTest.Result r) {
        assertThat(r.code()).as(r.err()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).startsWith("fabricd: config file ")
                .doesNotContain("\tat ", "Exception", "java.", "io.fabricd.", "com.fasterxml", "`", "Cannot construct", "in 'reader'");
        return r.err();
    }

    @Test
    void everyProblemOfTheFileAtOnceEachWithItsLine(@TempDir Path tmp) throws Exception {
        Path cfg = Files.writeString(tmp.resolve("fabricd.yaml"), """
                listen: :9530
                colection:
                  interval: 5s
                http:
                  max_connections: lots
                probe:
                  sizes: [64, big]
                  count: 10
                  peer: [a:9530]
                diagnosis:
                  port_errors:
                    symbol_error: often
                """);
        String err = refused(metrics(cfg));
        List<String> lines = err.lines().toList();
        assertThat(lines.get(0)).isEqualTo("fabricd: config file " + cfg + " has 5 errors:");
        assertThat(lines).hasSize(6);
        assertThat(lines.get(1)).isEqualTo("  unknown key 'colection' (line 2); known keys: bandwidth, collection, diagnosis, http, listen, "
                + "netdev, probe, rdma, state_dir");
        assertThat(lines.get(2)).isEqualTo("  http.max_connections: 'lots' is not a whole number (line 5)");
        assertThat(lines.get(3)).isEqualTo("  probe.sizes[1]: 'big' is not a whole number (line 7)");
        assertThat(lines.get(4)).startsWith("  unknown key 'peer' in probe (line 9); known keys there: ").contains(", peers, ");
        assertThat(lines.get(5)).isEqualTo("  diagnosis.port_errors.symbol_error: 'often' is not a rate (like 120/h, 5/m, 10/s or 0) (line 12)");
    }

    @Test
    void oneProblemIsOneLineNamingKeyAndLine(@TempDir Path tmp) throws Exception {
        Path cfg = tmp.resolve("c.yaml");
        Files.writeString(cfg, "diagnosis:\n  port_errors:\n    symbol_error: lots\n");
        assertThat(refused(metrics(cfg))).isEqualTo("fabricd: config file " + cfg
                + ": diagnosis.port_errors.symbol_error: 'lots' is not a rate (like 120/h, 5/m, 10/s or 0) (line 3)\n");
        Files.writeString(cfg, "probe:\n  key_file: [a, b]\n");
        assertThat(refused(metrics(cfg))).contains("probe.key_file: expected a file path (line 2)");
        Files.writeString(cfg, "probe:\n  count: 99999999999999\n");
        assertThat(refused(metrics(cfg))).contains("probe.count: 99999999999999 is out of range (at most 2147483647) (line 2)");
        Files.writeString(cfg, "collection:\n  interval: [1, 2]\n");
        assertThat(refused(metrics(cfg))).contains("collection.interval: expected a duration (like 500ms, 10s, 1m) (line 2)");
        Files.writeString(cfg, "collection:\n  interval: 1ms\n");
        assertThat(refused(metrics(cfg))).contains("collection.interval must be at least 100ms (line 2)");
        Files.writeString(cfg, "listen: :9530\ncollection:\n  disabled_collectors: [gpu]\n");
        assertThat(refused(metrics(cfg))).contains("unknown collector 'gpu'").contains("(line 3)");
        Files.writeString(cfg, "collection:\n  interval: 5s\n  interval: 6s\n");
        assertThat(refused(metrics(cfg))).contains("collection.interval: given twice, on lines 2 and 3");
        Files.writeString(cfg, "- listen\n");
        assertThat(refused(metrics(cfg))).contains("must be a mapping of keys to values (key: value lines), not a list");
    }

    @Test
    void aYamlSyntaxErrorIsOneLineWithItsPlace(@TempDir Path tmp) throws Exception {
        Path cfg = tmp.resolve("c.yaml");
        Files.writeString(cfg, "listen: :9530\n\tcollection: {}\n");
        String err = refused(metrics(cfg));
        assertThat(err.strip().lines()).hasSize(1);
        assertThat(err).contains("not valid YAML: ", "(line 2, column 1)");
        Files.writeString(cfg, "probe:\n  peers: [a:1, b:2\n");
        assertThat(refused(metrics(cfg)).strip().lines()).hasSize(1);
    }

    @Test
    void devNullIsNoConfigAndEnumLikeValuesTakeAnyCase(@TempDir Path tmp) throws Exception {
        CliTest.Result none = CliTest.run("metrics", "--demo", "--config", "/dev/null");
        assertThat(none.code()).as(none.err()).isZero();
        assertThat(none.err()).isEmpty();
        assertThat(CliTest.run("diagnose", "--demo", "--config", "/dev/null", "--fail-on", "never").code()).isZero();
        Path cfg = Files.writeString(tmp.resolve("c.yaml"), "diagnosis:\n  roce: {trust: DSCP}\n");
        CliTest.Result upper = metrics(cfg);
        assertThat(upper.code()).as(upper.err()).isZero();
        // another device is still no config file
        assertThat(refused(CliTest.run("metrics", "--demo", "--config", "/dev/zero"))).contains("is not a regular file");
    }
}
