package io.fabricd.preflight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HostlistTest {
    @Test
    void expandsRangesKeepingZeroPadding() {
        assertThat(Hostlist.parse("gpu[001-003,070]")).containsExactly("gpu001", "gpu002", "gpu003", "gpu070");
        assertThat(Hostlist.parse("gpu[8-10]")).containsExactly("gpu8", "gpu9", "gpu10");
        assertThat(Hostlist.parse("gpu[098-100]")).containsExactly("gpu098", "gpu099", "gpu100");
    }

    @Test
    void severalAtTheTopLevelAndProductsOfGroups() {
        assertThat(Hostlist.parse("a[1-2],b3")).containsExactly("a1", "a2", "b3");
        assertThat(Hostlist.parse("r[1-2]n[01-02]")).containsExactly("r1n01", "r1n02", "r2n01", "r2n02");
        assertThat(Hostlist.parse("node-a.ib, node_b")).containsExactly("node-a.ib", "node_b");
        assertThat(Hostlist.parse("[1-2]x")).containsExactly("1x", "2x");
    }

    @Test
    void aNameGivenTwiceCountsOnce() {
        assertThat(Hostlist.parse("gpu[1-3],gpu2,gpu[3-4]")).containsExactly("gpu1", "gpu2", "gpu3", "gpu4");
    }

    @Test
    void compressesToTheShortestUsualForm() {
        assertThat(Hostlist.compress(List.of("gpu070", "gpu002", "gpu001", "gpu003"))).isEqualTo("gpu[001-003,070]");
        assertThat(Hostlist.compress(List.of("gpu9", "gpu10", "gpu8"))).isEqualTo("gpu[8-10]");
        assertThat(Hostlist.compress(List.of("gpu007"))).isEqualTo("gpu007");
        assertThat(Hostlist.compress(List.of("b3", "a1", "a2", "login"))).isEqualTo("a[1-2],b3,login");
        assertThat(Hostlist.compress(List.of("r10n1", "r2n1", "r1n1", "r1n2"))).isEqualTo("r1n[1-2],r2n1,r10n1");
        assertThat(Hostlist.compress(List.of("gpu099", "gpu100", "gpu101"))).isEqualTo("gpu[099-101]");
        assertThat(Hostlist.compress(List.of("r1n01", "r1n02", "r2n01"))).isEqualTo("r1n[01-02],r2n01");
        assertThat(Hostlist.compress(List.of())).isEmpty();
    }

    @Test
    void widthsThatDifferStayApart() {
        String c = Hostlist.compress(List.of("gpu1", "gpu01", "gpu2", "gpu02"));
        assertThat(new TreeSet<>(Hostlist.parse(c))).containsExactly("gpu01", "gpu02", "gpu1", "gpu2");
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
    void compressAndParseRoundTripOnRandomSets(long seed) {
        Random r = new Random(seed);
        String[] prefixes = {"gpu", "r1n", "node-", "a.b_", "x"};
        Set<String> names = new TreeSet<>();
        int n = 1 + r.nextInt(500);
        for (int i = 0; i < n; i++) {
            String p = prefixes[r.nextInt(prefixes.length)];
            int width = r.nextInt(5);
            int v = r.nextInt(r.nextBoolean() ? 40 : 2000);
            names.add(r.nextInt(20) == 0 ? p.replace("-", "") : p + Hostlist.pad(v, width));
        }
        String compressed = Hostlist.compress(names);
        List<String> back = Hostlist.parse(compressed);
        assertThat(back).hasSize(names.size());
        assertThat(new TreeSet<>(back)).isEqualTo(names);
        assertThat(Hostlist.compress(back)).isEqualTo(compressed);
    }

    @Test
    void aHundredThousandNamesParse() {
        assertThat(Hostlist.parse("gpu[000001-100000]")).hasSize(Hostlist.MAX_NAMES).endsWith("gpu100000");
        assertThat(Hostlist.compress(Hostlist.parse("r[1-100]n[0001-1000]"))).startsWith("r1n[0001-1000],r2n[0001-1000],");
    }

    @Test
    void emptyIsRefused() {
        assertOneLine("", "empty hostlist: give node names such as gpu[001-064,070]");
        assertOneLine("  ", "empty hostlist: give node names such as gpu[001-064,070]");
        assertThatThrownBy(() -> Hostlist.parse(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anUnclosedBracketIsRefused() {
        assertOneLine("gpu[", "hostlist \"gpu[\": '[' is never closed: write ranges as gpu[001-064]");
    }

    @Test
    void aReversedRangeIsRefused() {
        assertOneLine("gpu[3-1]", "hostlist \"gpu[3-1]\": range 3-1 is reversed: write the lower number first");
    }

    @Test
    void lettersInARangeAreRefused() {
        assertOneLine("gpu[a-b]", "hostlist \"gpu[a-b]\": 'a-b' in brackets is not a number or a range such as 001-064");
    }

    @Test
    void otherMalformedExpressionsAreRefused() {
        assertOneLine("gpu]", "hostlist \"gpu]\": ']' without '['");
        assertOneLine("gpu[[1]]", "hostlist \"gpu[[1]]\": '[' inside brackets: one level of brackets only");
        assertOneLine("gpu[]", "hostlist \"gpu[]\": empty brackets []");
        assertOneLine("a,,b", "hostlist \"a,,b\": an empty name between commas");
        assertOneLine("gpu[1-]", "hostlist \"gpu[1-]\": '1-' in brackets is not a number or a range such as 001-064");
        assertOneLine("gpu 1", "hostlist \"gpu 1\": character ' ' is not allowed in a node name");
        assertOneLine("gpu\n1", "hostlist \"gpu?1\": character '\\u000a' is not allowed in a node name");
        assertOneLine("gpu[1-9999999999999999999]",
                "hostlist \"gpu[1-9999999999999999999]\": '1-9999999999999999999' in brackets is not a number or a range such as 001-064");
    }

    @Test
    void moreThanAHundredThousandNamesAreRefusedBeforeExpanding() {
        String message = "hostlist \"gpu[1-100001]\": stands for more than 100000 names: split the job's node set";
        assertOneLine("gpu[1-100001]", message);
        assertOneLine("r[1-1000]n[1-1000]", "hostlist \"r[1-1000]n[1-1000]\": stands for more than 100000 names: split the job's node set");
        assertOneLine("a[1-60000],b[1-60000]", "hostlist \"a[1-60000],b[1-60000]\": stands for more than 100000 names: split the job's node set");
        // 10^200 names: counted, never expanded
        assertThatThrownBy(() -> Hostlist.parse("a" + "[0-9]".repeat(200))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("hostlist \"a[0-9][0-9][0-9][0-9][0-9][0-9][0-9][...\": stands for more than 100000 names: split the job's node set");
    }

    @Test
    void aTwoMegabyteStringIsRefusedWithoutQuotingIt() {
        String huge = "gpu1,".repeat(400_000);
        assertThat(huge.length()).isEqualTo(2_000_000);
        assertOneLine(huge, "hostlist of 2000000 characters is too long (at most 1048576): give ranges such as gpu[0001-1000], or a file of names");
    }

    @Test
    void longExpressionsAreQuotedInFortyCharacters() {
        String expr = "gpu[001-064],".repeat(10) + "gpu[3-1]";
        assertThatThrownBy(() -> Hostlist.parse(expr))
                .hasMessage("hostlist \"gpu[001-064],gpu[001-064],gpu[001-064...\": range 3-1 is reversed: write the lower number first");
    }

    @Test
    void aNameLongerThanADnsNameIsRefused() {
        assertThatThrownBy(() -> Hostlist.parse("a".repeat(300))).hasMessageContaining("is longer than 255 characters");
        assertThatThrownBy(() -> Hostlist.parse("a" + "[1]".repeat(300))).hasMessageContaining("a name longer than 255 characters");
    }

    @Test
    void compressRefusesWhatIsNotAHostName() {
        assertThatThrownBy(() -> Hostlist.compress(List.of("gpu[1]"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("node name \"gpu[1]\" has a character other than letters, digits, '-', '.', '_'");
        assertThatThrownBy(() -> Hostlist.compress(new ArrayList<>(List.of("")))).hasMessageContaining("is empty");
    }

    private static void assertOneLine(String expr, String message) {
        assertThatThrownBy(() -> Hostlist.parse(expr)).isInstanceOf(IllegalArgumentException.class).hasMessage(message)
                .satisfies(t -> assertThat(t.getMessage()).doesNotContain("\n").hasSizeLessThan(200));
    }
}
