package io.fabricd.collectors.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code ethtool -S} text: the index-scanning parser gives what the plain line-by-line reading
 * (split, strip, lastIndexOf, parseUnsignedLong: the earlier parser) gives, on a real
 * side-car and on seeded mutations of it.
 */
class EthtoolStatsTest {
    private static final Path SIDE_CAR = Path.of("src/test/fixtures/host-f-big/fabricd/ethtool/ens1f0np0.txt");

    /** The number as the earlier parser read it: strip, at most 20 digits, unsigned 64 bits. */
    private static Long number(String text) {
        String t = text.strip();
        if (t.isEmpty() || t.length() > 20 || !t.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return null;
        }
        try {
            return Long.parseUnsignedLong(t);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** The reading the parser must agree with: one line at a time, as simply as it can be said. */
    private static Map<String, Long> reference(String text, int[] bad) {
        Map<String, Long> m = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            String t = line.strip();
            if (t.isEmpty() || t.endsWith("statistics:")) {
                continue;
            }
            int colon = t.lastIndexOf(':');
            Long v = colon <= 0 ? null : number(t.substring(colon + 1));
            if (v == null) {
                bad[0]++;
                continue;
            }
            m.put(t.substring(0, colon).strip(), v);
        }
        return m;
    }

    @Test
    void readsARealSideCar() throws Exception {
        String text = Files.readString(SIDE_CAR);
        int[] bad = {0};
        EthtoolStats s = EthtoolStats.parse(text, bad);
        assertThat(bad[0]).isZero();
        assertThat(s.stats()).hasSizeGreaterThan(100).containsKey("rx_prio3_pause");
        assertThat(s.stats()).containsExactlyInAnyOrderEntriesOf(reference(text, new int[1])); // sorted by name
    }

    @Test
    void edgeCases() {
        int[] bad = {0};
        String text = "NIC statistics:\n  a: 1\n\n  b : 18446744073709551615 \n  c: 18446744073709551616\n  d: -1\n"
                + ": 5\n  e:\n  f: 1 2\n  g:h: 3\r\n  x\n  last: 7";
        assertThat(EthtoolStats.parse(text, bad).stats())
                .containsExactly(Map.entry("a", 1L), Map.entry("b", -1L), Map.entry("g:h", 3L), Map.entry("last", 7L));
        assertThat(bad[0]).isEqualTo(6);
    }

    static LongStream seeds() {
        return LongStream.range(0, 300);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void agreesWithTheLineByLineReadingOnMutations(long seed) throws Exception {
        Random rnd = new Random(seed);
        StringBuilder sb = new StringBuilder(Files.readString(SIDE_CAR));
        String alphabet = ":\n \t\r0123456789x-\u0000é";
        for (int i = rnd.nextInt(40); i > 0; i--) {
            int at = rnd.nextInt(sb.length() + 1);
            switch (rnd.nextInt(3)) {
                case 0 -> sb.insert(at, alphabet.charAt(rnd.nextInt(alphabet.length())));
                case 1 -> sb.delete(at, Math.min(sb.length(), at + 1 + rnd.nextInt(8)));
                default -> sb.insert(at, Long.toUnsignedString(rnd.nextLong()));
            }
        }
        if (rnd.nextBoolean()) {
            sb.setLength(rnd.nextInt(sb.length() + 1)); // truncated
        }
        String text = sb.toString();
        int[] bad = {0};
        int[] refBad = {0};
        assertThat(EthtoolStats.parse(text, bad).stats()).containsExactlyInAnyOrderEntriesOf(reference(text, refBad));
        assertThat(bad[0]).isEqualTo(refBad[0]);
    }
}
