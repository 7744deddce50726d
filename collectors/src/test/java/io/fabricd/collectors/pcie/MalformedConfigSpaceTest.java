package io.fabricd.collectors.pcie;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.collectors.Fixtures;
import io.fabricd.model.PcieConfig;
import io.fabricd.model.PcieConfig.Walk.Outcome;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Broken capability lists decode to nothing (as lspci decodes nothing past {@code <chain looped>}
 * or {@code <chain broken>}): loops of every length, pointers into the header, IDs out of range,
 * capabilities too long for their space, reserved encodings, each in the standard and in the
 * extended list, which are judged apart; and seeded mutations of the two real dumps of
 * real/README.md with what each must give. Every case starts from a real config space.
 */
class MalformedConfigSpaceTest {
    static final String ROOT_PORT = ConfigSpaceTest.ROOT_PORT;
    static final String ENDPOINT = ConfigSpaceTest.ENDPOINT;
    /** The 82576's PCI Express capability (version 2, 0x3c bytes): its standard list is 0x40, 0x50, 0x70, 0xa0. */
    static final int EXP = 0xa0;
    /** The 5520 root port's ACS capability: its extended list is 0x100 (AER), 0x150 (ACS), 0x160. */
    static final int ACS = 0x150;

    private static final byte[] ROOT_PORT_BYTES = Fixtures.lspciDump(ROOT_PORT);
    private static final byte[] ENDPOINT_BYTES = Fixtures.lspciDump(ENDPOINT);

    /** A fresh copy of one of the two dumps. */
    static byte[] dump(String name) {
        return (name.equals(ROOT_PORT) ? ROOT_PORT_BYTES : ENDPOINT_BYTES).clone();
    }

    static PcieConfig decode(byte[] b) {
        return ConfigSpace.decode("0000:19:00.0", b);
    }

    static void put16(byte[] b, int at, int v) {
        b[at] = (byte) v;
        b[at + 1] = (byte) (v >> 8);
    }

    static void put32(byte[] b, int at, long v) {
        put16(b, at, (int) v & 0xffff);
        put16(b, at + 2, (int) (v >>> 16) & 0xffff);
    }

    static long u32(byte[] b, int at) {
        return (b[at] & 0xffL) | (b[at + 1] & 0xffL) << 8 | (b[at + 2] & 0xffL) << 16 | (b[at + 3] & 0xffL) << 24;
    }

    /** An extended capability header: ID, version 1, next. */
    static long header(int id, int next) {
        return id | 1L << 16 | (long) next << 20;
    }

    /** The offsets of a dump's standard list, walked as it is (the dumps are well formed). */
    static List<Integer> standard(byte[] b) {
        List<Integer> out = new ArrayList<>();
        for (int pos = b[0x34] & 0xfc; pos != 0; pos = b[pos + 1] & 0xfc) {
            out.add(pos);
        }
        return out;
    }

    static List<Integer> extended(byte[] b) {
        List<Integer> out = new ArrayList<>();
        for (int pos = 0x100; pos != 0 && u32(b, pos) != 0; pos = (int) (u32(b, pos) >>> 20) & 0xffc) {
            out.add(pos);
        }
        return out;
    }

    static void assertNoStandardValues(PcieConfig c) {
        assertThat(new Object[] {c.maxPayload(), c.maxPayloadSupported(), c.maxReadRequest(), c.relaxedOrdering()}).containsOnlyNulls();
    }

    static void assertStandardMalformed(PcieConfig c, String problem) {
        assertThat(c.capabilities().outcome()).isEqualTo(Outcome.MALFORMED);
        assertThat(c.capabilities().problem()).contains(problem);
        assertNoStandardValues(c);
    }

    static void assertExtendedMalformed(PcieConfig c, String problem) {
        assertThat(c.extendedCapabilities().outcome()).isEqualTo(Outcome.MALFORMED);
        assertThat(c.extendedCapabilities().problem()).contains(problem);
        assertThat(c.acs()).isNull();
    }

    /** The standard registers and walk of {@code c} are those of {@code original}: the extended list's trouble did not reach them. */
    static void assertStandardAsIn(PcieConfig c, PcieConfig original) {
        assertThat(c.capabilities()).isEqualTo(original.capabilities());
        assertThat(List.of(c.maxPayload(), c.maxPayloadSupported(), c.maxReadRequest(), c.relaxedOrdering()))
                .isEqualTo(List.of(original.maxPayload(), original.maxPayloadSupported(), original.maxReadRequest(), original.relaxedOrdering()));
    }

    static void assertExtendedAsIn(PcieConfig c, PcieConfig original) {
        assertThat(c.extendedCapabilities()).isEqualTo(original.extendedCapabilities());
        assertThat(c.acs()).isEqualTo(original.acs());
    }

    // ---- loops of every length

    /** The 4-byte slots of the conventional space outside the 82576's PCI Express capability (0xa0 to 0xdc). */
    static final List<Integer> FREE_SLOTS = IntStream.iterate(0x40, p -> p < 0x100, p -> p + 4).filter(p -> p < EXP || p >= EXP + 0x3c)
            .boxed().toList();

    static Stream<Integer> standardChainLengths() {
        return IntStream.rangeClosed(1, FREE_SLOTS.size() + 1).boxed();
    }

    /**
     * The 82576's standard list rewritten as a chain of {@code k} capabilities that starts with its
     * PCI Express capability, every other one an MSI header in a free slot; the last one points back
     * to each earlier one in turn (and to itself): every loop of length 1 to k. The PCI Express
     * capability is met before the loop, so a walk that stops at the first match would decode it.
     */
    @ParameterizedTest(name = "a chain of {0}")
    @MethodSource("standardChainLengths")
    void aStandardLoopOfEveryLengthDecodesNothing(int k) {
        PcieConfig original = decode(dump(ENDPOINT));
        for (int loop = 1; loop <= k; loop++) {
            byte[] b = dump(ENDPOINT);
            List<Integer> chain = new ArrayList<>(List.of(EXP));
            chain.addAll(FREE_SLOTS.subList(0, k - 1));
            b[0x34] = (byte) EXP;
            for (int i = 0; i < k; i++) {
                int at = chain.get(i);
                if (at != EXP) {
                    b[at] = 0x05;
                }
                b[at + 1] = (byte) (i + 1 < k ? chain.get(i + 1) : chain.get(k - loop)).intValue();
            }
            PcieConfig c = decode(b);
            String as = "a loop of " + loop + " in a chain of " + k;
            assertThat(c.capabilities().outcome()).as(as).isEqualTo(Outcome.MALFORMED);
            assertThat(c.capabilities().problem()).as(as).startsWith("the list loops: ")
                    .endsWith(String.format("points back to 0x%02x", chain.get(k - loop)));
            assertNoStandardValues(c);
            assertExtendedAsIn(c, original);
        }
    }

    /** The 16-byte slots of the extended space after the 5520's ACS capability. */
    static final List<Integer> EXT_SLOTS = IntStream.iterate(0x160, p -> p < 0x1000, p -> p + 0x10).boxed().toList();

    /** Chains of 2 to 9 and longer ones up to the 236 that fill the extended space: the longest holds a loop of every length. */
    static Stream<Integer> extendedChainLengths() {
        return Stream.concat(IntStream.rangeClosed(2, 9).boxed(), Stream.of(16, 33, 64, 127, 128, 200, EXT_SLOTS.size() + 2));
    }

    /** The 5520's extended list as a chain of {@code k}: its AER, its ACS, then AER headers; a loop back of every length 1 to k. */
    @ParameterizedTest(name = "a chain of {0}")
    @MethodSource("extendedChainLengths")
    void anExtendedLoopOfEveryLengthDecodesNothing(int k) {
        PcieConfig original = decode(dump(ROOT_PORT));
        assertThat(original.acs()).isNotNull();
        for (int loop = 1; loop <= k; loop++) {
            byte[] b = dump(ROOT_PORT);
            List<Integer> chain = new ArrayList<>(List.of(0x100, ACS));
            chain.addAll(EXT_SLOTS.subList(0, k - 2));
            for (int i = 0; i < k; i++) {
                int at = chain.get(i);
                int next = i + 1 < k ? chain.get(i + 1) : chain.get(k - loop);
                put32(b, at, header(at == ACS ? 0x000d : 0x0001, next));
            }
            PcieConfig c = decode(b);
            String as = "a loop of " + loop + " in a chain of " + k;
            assertThat(c.extendedCapabilities().outcome()).as(as).isEqualTo(Outcome.MALFORMED);
            assertThat(c.extendedCapabilities().problem()).as(as).startsWith("the extended list loops: ");
            assertThat(c.acs()).as(as).isNull();
            assertStandardAsIn(c, original);
        }
    }

    // ---- pointers that leave their space

    /** A pointer into the header (0x04 to 0x3c), from the capability pointer or from a capability's next. */
    @Test
    void aStandardPointerIntoTheHeader() {
        for (int to = 0x04; to < 0x40; to += 4) {
            byte[] first = dump(ENDPOINT);
            first[0x34] = (byte) to;
            assertStandardMalformed(decode(first), String.format("the capability pointer (0x34) points to 0x%02x, inside the header", to));
            byte[] next = dump(ENDPOINT);
            next[0x71] = (byte) to; // MSI-X, the capability before the PCI Express one
            assertStandardMalformed(decode(next), String.format("the capability at 0x70 points to 0x%02x, inside the header", to));
        }
        // the two low bits of a pointer are reserved: masked, as the kernel and lspci do
        byte[] low = dump(ENDPOINT);
        low[0x71] = (byte) (EXP | 3);
        assertThat(decode(low)).isEqualTo(decode(dump(ENDPOINT)));
    }

    /** An extended next pointer into the first 256 bytes. */
    @Test
    void anExtendedPointerIntoTheConventionalSpace() {
        PcieConfig original = decode(dump(ROOT_PORT));
        for (int to = 0x04; to < 0x100; to += 4) {
            byte[] b = dump(ROOT_PORT);
            put32(b, 0x100, header(0x0001, to));
            PcieConfig c = decode(b);
            assertExtendedMalformed(c, String.format("the extended capability at 0x100 points to 0x%03x, inside the first 256 bytes", to));
            assertStandardAsIn(c, original);
        }
        // a next pointer to a capability that reads all ones
        byte[] ones = dump(ROOT_PORT);
        put32(ones, 0x100, header(0x0001, 0x800));
        put32(ones, 0x800, 0xffffffffL);
        assertExtendedMalformed(decode(ones), "points to 0x800, which reads all ones");
    }

    // ---- IDs out of range

    /** Every standard ID from 0x16 to 0xff in the capability before the PCI Express one; 0x00 to 0x15 are real. */
    @Test
    void standardIdsOutOfRange() {
        PcieConfig original = decode(dump(ENDPOINT));
        for (int id = 0; id <= 0xff; id++) {
            byte[] b = dump(ENDPOINT);
            b[0x50] = (byte) id;
            PcieConfig c = decode(b);
            if (id > 0x15) {
                assertStandardMalformed(c, String.format("capability ID 0x%02x at 0x50 is out of range", id));
            } else if (id == 0x10) {
                assertStandardMalformed(c, "two capabilities of ID 0x10, at 0x50 and 0xa0");
            } else {
                assertThat(c).as("ID 0x%02x", id).isEqualTo(original);
            }
            assertExtendedAsIn(c, original);
        }
    }

    static Stream<Integer> extendedIdsOutOfRange() {
        Random r = new Random(0xacdcL);
        return Stream.concat(Stream.of(0x0040, 0x0041, 0x00ff, 0x0100, 0x1234, 0x8000, 0xfffe, 0xffff),
                IntStream.range(0, 40).mapToObj(i -> 0x40 + r.nextInt(0x10000 - 0x40)));
    }

    /** An extended ID above 0x003f in the capability before ACS: nothing from the extended list, the standard one untouched. */
    @ParameterizedTest(name = "ID 0x{0}")
    @MethodSource("extendedIdsOutOfRange")
    void extendedIdsOutOfRange(int id) {
        PcieConfig original = decode(dump(ROOT_PORT));
        byte[] b = dump(ROOT_PORT);
        put16(b, 0x100, id);
        PcieConfig c = decode(b);
        assertExtendedMalformed(c, String.format("extended capability ID 0x%04x at 0x100 is out of range", id));
        assertStandardAsIn(c, original);
    }

    @Test
    void extendedIdsInRangeAreRead() {
        PcieConfig original = decode(dump(ROOT_PORT));
        for (int id = 0; id <= 0x3f; id++) {
            byte[] b = dump(ROOT_PORT);
            put16(b, 0x100, id);
            PcieConfig c = decode(b);
            if (id == 0x000d) {
                assertExtendedMalformed(c, "two extended capabilities of ID 0x000d, at 0x100 and 0x150");
            } else {
                assertThat(c).as("ID 0x%04x", id).isEqualTo(original);
            }
        }
    }

    // ---- lengths that do not fit

    /**
     * The 82576's PCI Express capability moved to {@code at} (the list 0x40, 0x50, 0x70, at): version 2
     * is 0x3c bytes, so it fits the conventional space up to 0xc4 and runs past it from 0xc8.
     */
    @ParameterizedTest(name = "at 0x{0}")
    @ValueSource(ints = {0xc0, 0xc4, 0xc8, 0xcc, 0xe0, 0xf0, 0xf4, 0xfc})
    void aPciExpressCapabilityTooLongForTheConventionalSpace(int at) {
        byte[] b = dump(ENDPOINT);
        byte[] exp = Arrays.copyOfRange(b, EXP, EXP + 0x3c);
        Arrays.fill(b, EXP, 0x100, (byte) 0);
        System.arraycopy(exp, 0, b, at, Math.min(exp.length, 0x100 - at));
        b[0x71] = (byte) at;
        b[at + 1] = 0;
        PcieConfig c = decode(b);
        if (at + 0x3c <= 0x100) {
            assertThat(c.capabilities().whole()).isTrue();
            assertThat(c.maxReadRequest()).isEqualTo(512);
        } else {
            assertStandardMalformed(c, String.format("the PCI Express capability at 0x%02x (version 2, 60 bytes) runs past the 256-byte "
                    + "conventional space", at));
        }
        // a version 1 capability is shorter (0x0c bytes at least): it fits up to 0xf4
        b[at + 2] = (byte) ((b[at + 2] & 0xf0) | 1);
        if (at + 0x0c <= 0x100) {
            assertThat(decode(b).capabilities().whole()).as("version 1 at 0x%02x", at).isTrue();
        } else {
            assertStandardMalformed(decode(b), "(version 1, 12 bytes) runs past the 256-byte conventional space");
        }
        // version 0 is none
        b[at + 2] = (byte) (b[at + 2] & 0xf0);
        assertStandardMalformed(decode(b), String.format("the PCI Express capability at 0x%02x has version 0", at));
    }

    /** A capability header inside the PCI Express capability: one of them is not what the list says. */
    @Test
    void aCapabilityInsideThePciExpressOne() {
        for (int inside = EXP + 4; inside < EXP + 0x3c; inside += 4) {
            byte[] b = dump(ENDPOINT);
            b[EXP + 1] = (byte) inside;
            b[inside] = 0x05;
            b[inside + 1] = 0;
            assertStandardMalformed(decode(b), String.format("the capability at 0x%02x lies inside the PCI Express capability at 0xa0", inside));
        }
    }

    /** ACS is 8 bytes: at 0xff8 it ends the config space, at 0xffc it runs past it; another header inside it is broken too. */
    @Test
    void anAcsCapabilityTooLongOrHoldingAnother() {
        PcieConfig original = decode(dump(ROOT_PORT));
        for (int at : new int[] {0xff8, 0xffc}) {
            byte[] b = dump(ROOT_PORT);
            put32(b, 0x100, header(0x0001, at));
            System.arraycopy(dump(ROOT_PORT), ACS, b, at, 0x1000 - at);
            put32(b, at, header(0x000d, 0));
            PcieConfig c = decode(b);
            if (at == 0xff8) {
                assertThat(c.extendedCapabilities().whole()).isTrue();
                assertThat(c.acs()).isEqualTo(original.acs());
            } else {
                assertExtendedMalformed(c, "the ACS capability at 0xffc (8 bytes) runs past the 4096-byte config space");
            }
            assertStandardAsIn(c, original);
        }
        byte[] b = dump(ROOT_PORT);
        put32(b, ACS, header(0x000d, ACS + 4));
        put32(b, ACS + 4, header(0x0001, 0));
        assertExtendedMalformed(decode(b), "the capability at 0x154 lies inside the ACS capability at 0x150");
    }

    /** A size field with a reserved encoding (6, 7): the whole PCI Express capability is taken as garbage, not only that field. */
    @Test
    void reservedSizeEncodings() {
        for (int v : new int[] {6, 7}) {
            byte[] mrrs = dump(ENDPOINT);
            put16(mrrs, EXP + 8, (mrrs[EXP + 8] & 0xff | (mrrs[EXP + 9] & 0xff) << 8) & ~0x7000 | v << 12);
            assertStandardMalformed(decode(mrrs), "Device Control's Max_Read_Request_Size holds the reserved value " + v);
            byte[] mps = dump(ENDPOINT);
            put16(mps, EXP + 8, (mps[EXP + 8] & 0xff | (mps[EXP + 9] & 0xff) << 8) & ~0xe0 | v << 5);
            assertStandardMalformed(decode(mps), "Device Control's Max_Payload_Size holds the reserved value " + v);
            byte[] mpss = dump(ENDPOINT);
            mpss[EXP + 4] = (byte) (mpss[EXP + 4] & ~7 | v);
            assertStandardMalformed(decode(mpss), "Max_Payload_Size Supported holds the reserved value " + v);
        }
    }

    /** More bytes than a config space holds: not a config space, nothing in it is a register. */
    @Test
    void moreThanAConfigSpace() {
        byte[] b = Arrays.copyOf(dump(ROOT_PORT), 4097);
        PcieConfig c = decode(b);
        assertStandardMalformed(c, "4097 bytes: more than the 4096 a config space holds");
        assertExtendedMalformed(c, "4097 bytes: more than the 4096 a config space holds");
    }

    /** A header type other than 0, 1 (bridge) and 2 (CardBus) says nothing of where the list starts. */
    @Test
    void aHeaderTypeWithoutAList() {
        for (int type = 3; type < 0x80; type += 0x1d) {
            byte[] b = dump(ENDPOINT);
            b[0x0e] = (byte) (0x80 | type);
            assertStandardMalformed(decode(b), "header type " + type + " is none of 0, 1 and 2");
        }
    }

    // ---- the two lists apart

    @Test
    void theExtendedListBrokenTheStandardOneFine() {
        byte[] b = dump(ROOT_PORT);
        put32(b, 0x100, header(0x0001, 0x100)); // AER points to itself
        PcieConfig c = decode(b);
        assertExtendedMalformed(c, "the extended list loops: the extended capability at 0x100 points back to 0x100");
        assertThat(c.capabilities().whole()).isTrue();
        assertThat(c.maxReadRequest()).isEqualTo(128);
        assertThat(c.maxPayloadSupported()).isEqualTo(256);
    }

    @Test
    void theStandardListBrokenTheExtendedOneFine() {
        byte[] b = dump(ROOT_PORT);
        b[0xe1] = 0x40; // PM, after the PCI Express capability, points back to the first capability
        PcieConfig c = decode(b);
        assertStandardMalformed(c, "the list loops: the capability at 0xe0 points back to 0x40");
        assertThat(c.extendedCapabilities().whole()).isTrue();
        assertThat(c.acs()).isEqualTo(decode(dump(ROOT_PORT)).acs());
    }

    // ---- seeded mutations of the real dumps

    enum Mutation { LOOP, INTO_HEADER, ID_OUT_OF_RANGE, EXT_LOOP, EXT_INTO_CONVENTIONAL, EXT_ID_OUT_OF_RANGE, INERT_BYTE, ANY_BYTE }

    static Stream<Long> seeds() {
        return IntStream.range(0, 600).mapToObj(i -> 0x5eed0000L + i);
    }

    /** The bytes a decode reads: IDs, status, header type, list pointers, every header, the PCI Express and ACS capabilities whole. */
    static Set<Integer> structure(byte[] b) {
        Set<Integer> out = new HashSet<>(List.of(0, 1, 2, 3, 0x06, 0x07, 0x0e, 0x34));
        for (int pos : standard(b)) {
            int len = (b[pos] & 0xff) == 0x10 ? 0x3c : 2;
            IntStream.range(pos, pos + len).forEach(out::add);
        }
        for (int pos : extended(b)) {
            int len = (u32(b, pos) & 0xffff) == 0x000d ? 8 : 4;
            IntStream.range(pos, pos + len).forEach(out::add);
        }
        return out;
    }

    /**
     * One mutation of a real dump per seed, each with what it must give: a next pointer turned back
     * to a capability already met (a loop), into the header, or an ID out of range, in either list,
     * leaves that list malformed with nothing decoded from it and the other list as it was; a byte
     * the decode does not read changes nothing; any byte at all never throws and never gives a value
     * from a list that is not whole.
     */
    @ParameterizedTest
    @MethodSource("seeds")
    void seededMutationsOfRealConfigSpaces(long seed) {
        Random r = new Random(seed);
        byte[] b = dump(r.nextBoolean() ? ROOT_PORT : ENDPOINT);
        PcieConfig original = decode(b);
        List<Integer> std = standard(b);
        List<Integer> ext = extended(b);
        Mutation m = Mutation.values()[r.nextInt(Mutation.values().length)];
        String as = "seed " + seed + ": " + m;
        switch (m) {
            case LOOP -> {
                int i = r.nextInt(std.size());
                b[std.get(i) + 1] = (byte) std.get(r.nextInt(i + 1)).intValue();
                PcieConfig c = decode(b);
                assertStandardMalformed(c, "the list loops");
                assertExtendedAsIn(c, original);
            }
            case INTO_HEADER -> {
                int i = r.nextInt(std.size() + 1);
                b[i == std.size() ? 0x34 : std.get(i) + 1] = (byte) (4 + 4 * r.nextInt(15));
                PcieConfig c = decode(b);
                assertStandardMalformed(c, "inside the header");
                assertExtendedAsIn(c, original);
            }
            case ID_OUT_OF_RANGE -> {
                b[std.get(r.nextInt(std.size()))] = (byte) (0x16 + r.nextInt(0xff - 0x16 + 1));
                PcieConfig c = decode(b);
                assertStandardMalformed(c, "is out of range");
                assertExtendedAsIn(c, original);
            }
            case EXT_LOOP -> {
                int i = r.nextInt(ext.size());
                put32(b, ext.get(i), u32(b, ext.get(i)) & 0xfffffL | (long) ext.get(r.nextInt(i + 1)) << 20);
                PcieConfig c = decode(b);
                assertExtendedMalformed(c, "the extended list loops");
                assertStandardAsIn(c, original);
            }
            case EXT_INTO_CONVENTIONAL -> {
                int i = r.nextInt(ext.size());
                put32(b, ext.get(i), u32(b, ext.get(i)) & 0xfffffL | (long) (4 + 4 * r.nextInt(63)) << 20);
                PcieConfig c = decode(b);
                assertExtendedMalformed(c, "inside the first 256 bytes");
                assertStandardAsIn(c, original);
            }
            case EXT_ID_OUT_OF_RANGE -> {
                put16(b, ext.get(r.nextInt(ext.size())), 0x40 + r.nextInt(0x10000 - 0x40));
                PcieConfig c = decode(b);
                assertExtendedMalformed(c, "is out of range");
                assertStandardAsIn(c, original);
            }
            case INERT_BYTE -> {
                Set<Integer> read = structure(b);
                int at;
                do {
                    at = r.nextInt(b.length);
                } while (read.contains(at));
                b[at] = (byte) r.nextInt(256);
                assertThat(decode(b)).as(as + " at 0x%03x", at).isEqualTo(original);
            }
            case ANY_BYTE -> {
                b[r.nextInt(b.length)] = (byte) r.nextInt(256);
                PcieConfig c = decode(b);
                if (!c.capabilities().whole()) {
                    assertNoStandardValues(c);
                    assertThat(c.capabilities().problem()).as(as).isNotBlank();
                }
                if (!c.extendedCapabilities().whole()) {
                    assertThat(c.acs()).as(as).isNull();
                }
            }
            default -> throw new IllegalStateException(as);
        }
    }
}
