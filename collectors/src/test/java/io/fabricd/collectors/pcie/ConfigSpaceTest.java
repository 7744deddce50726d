package io.fabricd.collectors.pcie;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.collectors.Fixtures;
import io.fabricd.model.PcieConfig;
import io.fabricd.model.PcieConfig.Walk.Outcome;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The registers decoded from real config-space dumps (pciutils' own test data, with lspci's decode
 * of each as the expectation: real/README.md), from what an unprivileged read returns, from every
 * truncation of them, and from random bytes. Broken capability lists: {@link MalformedConfigSpaceTest}.
 */
class ConfigSpaceTest {
    static final String ROOT_PORT = "pciutils-cap-pcie-1.lspci-xxxx.txt";
    static final String ENDPOINT = "pciutils-cap-pcie-2.lspci-xxxx.txt";

    /** An Intel 82576 NIC function: DevCap MaxPayload 512, DevCtl MaxPayload 256, MaxReadReq 512, RlxdOrd+; no ACS. */
    @Test
    void anEndpointsDeviceControl() {
        PcieConfig c = ConfigSpace.decode("0000:09:00.0", Fixtures.lspciDump(ENDPOINT));
        assertThat(c.bytesRead()).isEqualTo(4096);
        assertThat(c.maxPayloadSupported()).isEqualTo(512);
        assertThat(c.maxPayload()).isEqualTo(256);
        assertThat(c.maxReadRequest()).isEqualTo(512);
        assertThat(c.relaxedOrdering()).isTrue();
        assertThat(c.capabilities()).isEqualTo(PcieConfig.Walk.WHOLE);
        assertThat(c.extendedCapabilities()).isEqualTo(PcieConfig.Walk.WHOLE);
        assertThat(c.acs()).as("its extended capabilities are AER, DSN, ARI and SR-IOV").isNull();
    }

    /** A function that fell off the bus answers every config read with all ones: nothing in it is a register. */
    @ParameterizedTest
    @ValueSource(ints = {4, 64, 256, 4096})
    void allOnesIsAGoneFunctionNotRegisterValues(int length) {
        byte[] b = new byte[length];
        Arrays.fill(b, (byte) 0xff);
        PcieConfig c = ConfigSpace.decode("0000:18:00.0", b);
        assertThat(c.allOnes()).isTrue();
        assertThat(c.truncated()).isFalse();
        assertThat(c.capabilities().outcome()).isEqualTo(Outcome.GONE);
        assertThat(c.extendedCapabilities().outcome()).isEqualTo(Outcome.GONE);
        assertThat(c.maxPayload()).isNull();
        assertThat(c.maxPayloadSupported()).isNull();
        assertThat(c.maxReadRequest()).isNull();
        assertThat(c.relaxedOrdering()).isNull();
        assertThat(c.acs()).isNull();
        assertThat(ConfigSpace.decode("0000:09:00.0", Fixtures.lspciDump(ENDPOINT)).allOnes()).isFalse();
    }

    /** An Intel 5520 root port: ACSCap SrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+, every ACSCtl bit off. */
    @Test
    void aRootPortsAcs() {
        PcieConfig c = ConfigSpace.decode("0000:00:01.0", Fixtures.lspciDump(ROOT_PORT));
        assertThat(c.maxPayloadSupported()).isEqualTo(256);
        assertThat(c.maxPayload()).isEqualTo(128);
        assertThat(c.maxReadRequest()).isEqualTo(128);
        assertThat(c.relaxedOrdering()).isFalse();
        assertThat(c.acs()).isNotNull();
        assertThat(c.acs().capability()).isEqualTo(0x1f);
        assertThat(c.acs().control()).isZero();
        assertThat(c.acs().redirects()).isFalse();
        assertThat(c.acs().describeControl())
                .isEqualTo("SrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- DirectTrans-");
    }

    /** The same port with ACSCtl as lspci shows it on AMD and Intel hosts with ACS on (0x001d). */
    @Test
    void acsRedirectOn() {
        byte[] b = Fixtures.lspciDump(ROOT_PORT);
        b[0x156] = 0x1d;
        PcieConfig.Acs acs = ConfigSpace.decode("0000:00:01.0", b).acs();
        assertThat(acs.redirects()).isTrue();
        assertThat(acs.describeControl())
                .isEqualTo("SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-");
    }

    /** What an unprivileged read returns: the first 64 bytes, no capability reached, everything unknown and the walks cut. */
    @Test
    void anUnprivilegedReadLeavesEverythingUnknown() {
        byte[] b = Arrays.copyOf(Fixtures.lspciDump(ENDPOINT), 64);
        PcieConfig c = ConfigSpace.decode("0000:09:00.0", b);
        assertThat(c.bytesRead()).isEqualTo(64);
        assertThat(c.truncated()).isTrue();
        assertThat(c.maxPayload()).isNull();
        assertThat(c.maxReadRequest()).isNull();
        assertThat(c.relaxedOrdering()).isNull();
        assertThat(c.acs()).isNull();
        assertThat(c.capabilities().outcome()).isEqualTo(Outcome.CUT);
        assertThat(c.capabilities().problem()).isEqualTo("the capability at 0x40 lies past the 64 bytes read");
        assertThat(c.extendedCapabilities().outcome()).isEqualTo(Outcome.CUT);
    }

    /** 256 bytes (no extended space): the Device Control registers, ACS unknown. */
    @Test
    void withoutExtendedSpaceAcsIsUnknown() {
        PcieConfig c = ConfigSpace.decode("0000:00:01.0", Arrays.copyOf(Fixtures.lspciDump(ROOT_PORT), 256));
        assertThat(c.maxReadRequest()).isEqualTo(128);
        assertThat(c.capabilities().whole()).isTrue();
        assertThat(c.acs()).isNull();
        assertThat(c.extendedCapabilities().outcome()).isEqualTo(Outcome.CUT);
        // the kernel reads an extended space that the platform cannot reach as all ones
        byte[] b = Fixtures.lspciDump(ROOT_PORT);
        Arrays.fill(b, 0x100, 4096, (byte) 0xff);
        PcieConfig ones = ConfigSpace.decode("0000:00:01.0", b);
        assertThat(ones.extendedCapabilities().outcome()).isEqualTo(Outcome.CUT);
        assertThat(ones.extendedCapabilities().problem()).contains("reads all ones");
        assertThat(ones.acs()).isNull();
        assertThat(ones.maxReadRequest()).isEqualTo(128);
    }

    /**
     * Every truncation of both real dumps, at every byte from 0 to 4096: the decode never throws,
     * never calls a list malformed, and each value is either the whole dump's or unknown; a list is
     * whole exactly when its values are there, and once there they stay for every longer read.
     */
    @ParameterizedTest
    @ValueSource(strings = {ROOT_PORT, ENDPOINT})
    void truncatedAtEveryBoundaryAValueIsRightOrUnknown(String dump) {
        byte[] full = Fixtures.lspciDump(dump);
        PcieConfig whole = ConfigSpace.decode("x", full);
        boolean standardSeen = false;
        boolean extendedSeen = false;
        for (int n = 0; n <= full.length; n++) {
            PcieConfig c = ConfigSpace.decode("x", Arrays.copyOf(full, n));
            String at = dump + " cut at " + n;
            assertThat(c.bytesRead()).isEqualTo(n);
            assertThat(c.capabilities().outcome()).as(at).isIn(Outcome.WHOLE, Outcome.CUT);
            assertThat(c.extendedCapabilities().outcome()).as(at).isIn(Outcome.WHOLE, Outcome.CUT);
            if (c.capabilities().whole()) {
                assertThat(c.maxPayload()).as(at).isEqualTo(whole.maxPayload());
                assertThat(c.maxPayloadSupported()).as(at).isEqualTo(whole.maxPayloadSupported());
                assertThat(c.maxReadRequest()).as(at).isEqualTo(whole.maxReadRequest());
                assertThat(c.relaxedOrdering()).as(at).isEqualTo(whole.relaxedOrdering());
                standardSeen = true;
            } else {
                assertThat(standardSeen).as(at + ": whole at a shorter read").isFalse();
                assertThat(new Object[] {c.maxPayload(), c.maxPayloadSupported(), c.maxReadRequest(), c.relaxedOrdering()}).as(at)
                        .containsOnlyNulls();
            }
            if (c.extendedCapabilities().whole()) {
                assertThat(c.acs()).as(at).isEqualTo(whole.acs());
                extendedSeen = true;
            } else {
                assertThat(extendedSeen).as(at + ": whole at a shorter read").isFalse();
                assertThat(c.acs()).as(at).isNull();
            }
            if (n >= 256) {
                assertThat(c.capabilities().whole()).as(at + ": the standard list lies in the first 256 bytes").isTrue();
            }
        }
        assertThat(standardSeen && extendedSeen).isTrue();
    }

    static Stream<Long> seeds() {
        return IntStream.range(0, 200).mapToObj(i -> 0xfabc0de0L + i);
    }

    /**
     * Random bytes (seeded): the decode never throws, every size it reports is one the encoding
     * allows, and a list that is not whole gives no value.
     */
    @ParameterizedTest
    @MethodSource("seeds")
    void randomBytesNeverThrow(long seed) {
        Random r = new Random(seed);
        byte[] b = new byte[new int[] {0, 1, 63, 64, 255, 256, 300, 4095, 4096, 4097}[r.nextInt(10)]];
        r.nextBytes(b);
        if (b.length > 0x34) {
            b[0x06] |= 0x10; // a capability list, so the walk runs
            b[0x0e] &= 0x01; // a header type that has one
        }
        PcieConfig c = ConfigSpace.decode("x", b);
        for (Integer v : new Integer[] {c.maxPayload(), c.maxPayloadSupported(), c.maxReadRequest()}) {
            assertThat(v == null || Integer.bitCount(v) == 1 && v >= 128 && v <= 4096).as(String.valueOf(v)).isTrue();
        }
        if (!c.capabilities().whole()) {
            assertThat(c.maxReadRequest()).isNull();
        }
        if (!c.extendedCapabilities().whole()) {
            assertThat(c.acs()).isNull();
        }
    }
}
