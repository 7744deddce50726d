package io.fabricd.exporters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.fabricd.collectors.CollectorConfig;
import io.fabricd.collectors.Fixtures;
import io.fabricd.collectors.kernel.HostReadException;
import io.fabricd.collectors.kernel.KernelQueries;
import io.fabricd.collectors.run.HostCollection;
import io.fabricd.collectors.source.ForwardingHostSource;
import io.fabricd.collectors.source.HostSource;
import io.fabricd.collectors.source.SideCarKernel;
import io.fabricd.collectors.source.SnapshotHostSource;
import io.fabricd.diagnosis.run.Diagnosis;
import io.fabricd.model.CollectorRun;
import io.fabricd.model.HostModel;
import io.fabricd.model.finding.Finding;
import io.fabricd.testing.PromText;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hostile input: 10 000 seeded cases, each the real fixtures of collectors/src/test/fixtures
 * with one to three of the paths the collectors actually read turned hostile — truncated, garbage,
 * NUL bytes, a file of the maximum size, 2^64-1 and other out-of-range numbers, empty, failing
 * reads (EIO, EACCES, ETIMEDOUT, ENOENT), directories that fail to list or list thousands of
 * devices/VFs or names with '/', '..' and NUL, symlinks that loop or point out of the root, exists
 * and isDirectory lying. The side-cars (ethtool, DCB, verbs, QPs) are files under fabricd/ and are
 * mutated the same way.
 *
 * <p>Every case: no exception escapes a collector (HostCollection would record it as "collector
 * failed"), the checks run without failing, the exposition renders and parses, a case ends (a hang
 * guard, not a speed target), and when the hostile paths all belong to some RDMA devices, every
 * other device's ports are exported exactly as without them. A failure names its seed; rerun one
 * with {@code -Dfabricd.hostile.seed=N}.
 */
class HostileInputTest {
    static final List<String> FIXTURES = List.of("host-a-ib", "host-b-roce", "host-c-rxe", "host-d-topology",
            "host-e-roce-variants", "real-softroce-6.1");
    static final int BATCHES = 100;
    static final int PER_BATCH = 100;
    static final HostCollection COLLECTION = HostCollection.standard(CollectorConfig.DEFAULT);
    static final Map<String, Base> BASES = new ConcurrentHashMap<>();
    static final Pattern DEVICE = Pattern.compile("infiniband/([^/]+)/");

    /** A fixture, the paths its collection touches, and what it exports untouched. */
    record Base(SnapshotHostSource source, HostModel model, List<String> reads, List<String> lists, List<String> links,
                Map<String, Double> series) {
    }

    enum Kind { TRUNCATE, GARBAGE, NUL, HUGE, MAX_U64, OUT_OF_RANGE, EMPTY, FAIL, LIST_FAIL, LIST_MANY, LIST_BAD_NAMES,
        LINK_LOOP, LINK_OUT, EXISTS_LIES }

    record Mutation(Kind kind, String path, long seed) {
    }

    static Stream<Integer> batches() {
        String one = System.getProperty("fabricd.hostile.seed");
        return one != null ? Stream.of(-1) : IntStream.range(0, BATCHES).boxed();
    }

    @ParameterizedTest(name = "seeds {0}00-{0}99")
    @MethodSource("batches")
    void hundredSeededHostileHosts(int batch) {
        if (batch < 0) {
            runCase(Long.parseLong(System.getProperty("fabricd.hostile.seed")));
            return;
        }
        int changed = 0;
        for (int i = 0; i < PER_BATCH; i++) {
            changed += runCase((long) batch * PER_BATCH + i) ? 1 : 0;
        }
        // the mutations reach the collectors: most cases export something else or record read errors
        assertThat(changed).as("cases of batch " + batch + " whose outcome differs from the untouched fixture").isGreaterThan(PER_BATCH / 3);
    }

    static Base base(String fixture) {
        return BASES.computeIfAbsent(fixture, f -> {
            SnapshotHostSource src = Fixtures.open(f);
            Set<String> reads = new LinkedHashSet<>();
            Set<String> lists = new LinkedHashSet<>();
            Set<String> links = new LinkedHashSet<>();
            HostSource recording = new ForwardingHostSource(src) {
                @Override
                public String read(String path) throws HostReadException {
                    reads.add(path);
                    return super.read(path);
                }

                @Override
                public List<String> list(String path) throws HostReadException {
                    lists.add(path);
                    return super.list(path);
                }

                @Override
                public String realPath(String path) throws HostReadException {
                    links.add(path);
                    return super.realPath(path);
                }

                @Override
                public KernelQueries kernel() {
                    return new SideCarKernel(this);
                }
            };
            HostModel m = COLLECTION.collect(recording);
            return new Base(src, m, List.copyOf(reads), List.copyOf(lists), List.copyOf(links), PromText.parse(text(m, List.of())));
        });
    }

    static String text(HostModel m, List<Finding> findings) {
        return new String(Exposition.render(FabricMetrics.build(m, true, findings), null).body(), StandardCharsets.UTF_8);
    }

    /** Runs one case; true when its outcome (series or read errors) differs from the untouched fixture's. */
    static boolean runCase(long seed) {
        Random r = new Random(seed);
        Base b = base(FIXTURES.get(r.nextInt(FIXTURES.size())));
        Map<String, Mutation> reads = new HashMap<>();
        Map<String, Mutation> lists = new HashMap<>();
        Map<String, Mutation> links = new HashMap<>();
        List<Mutation> all = new ArrayList<>();
        int k = 1 + r.nextInt(3);
        for (int i = 0; i < k; i++) {
            Kind kind = Kind.values()[r.nextInt(Kind.values().length)];
            Mutation m;
            switch (kind) {
                case LIST_FAIL, LIST_MANY, LIST_BAD_NAMES -> {
                    m = new Mutation(kind, b.lists().get(r.nextInt(b.lists().size())), r.nextLong());
                    lists.put(m.path(), m);
                }
                case LINK_LOOP, LINK_OUT, EXISTS_LIES -> {
                    if (b.links().isEmpty()) {
                        continue;
                    }
                    m = new Mutation(kind, b.links().get(r.nextInt(b.links().size())), r.nextLong());
                    links.put(m.path(), m);
                }
                default -> {
                    m = new Mutation(kind, b.reads().get(r.nextInt(b.reads().size())), r.nextLong());
                    reads.put(m.path(), m);
                }
            }
            all.add(m);
        }
        String what = "seed " + seed + ": " + all;
        HostSource hostile = new Hostile(b.source(), reads, lists, links);
        HostModel m = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> COLLECTION.collect(hostile), what);
        for (CollectorRun run : m.collectors()) {
            assertThat(run.errors()).as(what + " / " + run.name()).noneMatch(e -> e.error().startsWith("collector failed"));
        }
        List<Finding> findings = Diagnosis.run(m, b.model()).findings();
        assertThat(findings).as(what).noneMatch(f -> f.summary().startsWith("check " + f.check() + " failed: "));
        Map<String, Double> series = PromText.parse(text(m, findings));
        assertThat(series).as(what).isNotEmpty();
        Map<String, Double> plain = PromText.parse(text(m, List.of()));
        boolean changed = !plain.equals(b.series()) || errors(m) != errors(b.model());

        // hostile paths of some RDMA devices only: every other device's ports are exported as before
        Set<String> touched = new LinkedHashSet<>();
        boolean deviceScoped = true;
        for (Mutation x : all) {
            Matcher d = DEVICE.matcher(x.path() + "/");
            if (d.find()) {
                touched.add(d.group(1));
            } else {
                deviceScoped = false;
            }
        }
        if (deviceScoped) {
            for (Map.Entry<String, Double> e : b.series().entrySet()) {
                String key = e.getKey();
                boolean portSeries = key.startsWith("fabric_port_up{") || key.startsWith("fabric_port_transmit_bytes_total{")
                        || key.startsWith("fabric_port_pma_total{");
                if (portSeries && touched.stream().noneMatch(t -> key.contains("device=\"" + t + "\""))) {
                    assertThat(series).as(what + " / " + key).containsEntry(key, e.getValue());
                }
            }
        }
        return changed;
    }

    static int errors(HostModel m) {
        return m.collectors().stream().mapToInt(r -> r.errors().size()).sum();
    }

    /** The fixture, with the chosen paths turned hostile. */
    static final class Hostile extends ForwardingHostSource {
        final Map<String, Mutation> reads;
        final Map<String, Mutation> lists;
        final Map<String, Mutation> links;

        Hostile(HostSource base, Map<String, Mutation> reads, Map<String, Mutation> lists, Map<String, Mutation> links) {
            super(base);
            this.reads = reads;
            this.lists = lists;
            this.links = links;
        }

        @Override
        public KernelQueries kernel() {
            return new SideCarKernel(this);
        }

        @Override
        public String read(String path) throws HostReadException {
            Mutation m = reads.get(path);
            if (m == null) {
                return super.read(path);
            }
            Random r = new Random(m.seed());
            String text;
            try {
                text = super.read(path);
            } catch (HostReadException e) {
                text = "";
            }
            return switch (m.kind()) {
                case TRUNCATE -> text.substring(0, r.nextInt(text.length() + 1));
                case GARBAGE -> {
                    byte[] g = new byte[1 + r.nextInt(300)];
                    r.nextBytes(g);
                    yield new String(g, StandardCharsets.ISO_8859_1);
                }
                case NUL -> {
                    StringBuilder sb = new StringBuilder(text);
                    for (int i = 0, n = 1 + r.nextInt(4); i < n; i++) {
                        sb.insert(r.nextInt(sb.length() + 1), '\0');
                    }
                    yield sb.toString();
                }
                case HUGE -> {
                    char c = "9a{0 \n".charAt(r.nextInt(6));
                    yield String.valueOf(c).repeat(HostSource.MAX_FILE_BYTES);
                }
                case MAX_U64 -> "18446744073709551615\n";
                case OUT_OF_RANGE -> List.of("18446744073709551616\n", "-1\n", "1e309\n", "NaN\n", "0x7fffffffffffffff\n",
                        "99999999999999999999999999999999\n", "-9223372036854775809\n", "4: ACTIVE 5: LinkUp\n",
                        "fe80::1 garbage\n", "[]", "{\"a\":", "null", "{}", "[1,2,3]").get(r.nextInt(14));
                case EMPTY -> "";
                case FAIL -> throw new HostReadException(path, List.of("EIO", "EACCES", "ETIMEDOUT", "ENOENT").get(r.nextInt(4)));
                default -> text;
            };
        }

        @Override
        public List<String> list(String path) throws HostReadException {
            Mutation m = lists.get(path);
            if (m == null) {
                return super.list(path);
            }
            Random r = new Random(m.seed());
            return switch (m.kind()) {
                case LIST_FAIL -> throw new HostReadException(path, List.of("EIO", "EACCES", "ENOENT", "ELOOP").get(r.nextInt(4)));
                case LIST_MANY -> {
                    List<String> names = new ArrayList<>(super.list(path));
                    String prefix = List.of("mlx5_", "eth", "virtfn", "port", "").get(r.nextInt(5));
                    for (int i = 0; i < 3000; i++) {
                        names.add(prefix + (1000 + i));
                    }
                    yield names;
                }
                case LIST_BAD_NAMES -> {
                    List<String> names = new ArrayList<>(super.list(path));
                    names.addAll(List.of("..", ".", "a/b", "../../etc", "x\0y", "", " ", "\n"));
                    yield names;
                }
                default -> super.list(path);
            };
        }

        @Override
        public String realPath(String path) throws HostReadException {
            Mutation m = links.get(path);
            if (m == null) {
                return super.realPath(path);
            }
            return switch (m.kind()) {
                case LINK_LOOP -> throw new HostReadException(path, "ELOOP");
                case LINK_OUT -> "../../../../etc/passwd";
                default -> super.realPath(path);
            };
        }

        @Override
        public boolean exists(String path) {
            Mutation m = links.get(path);
            return m != null && m.kind() == Kind.EXISTS_LIES ? !super.exists(path) : super.exists(path);
        }

        @Override
        public boolean isDirectory(String path) {
            Mutation m = links.get(path);
            return m != null && m.kind() == Kind.EXISTS_LIES ? !super.isDirectory(path) : super.isDirectory(path);
        }
    }
}
