package io.fabricd.collectors.pcie;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.collectors.Fixtures;
import io.fabricd.model.PcieConfig;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The registers decoded from real config-space dumps (pciutils' own test data, with lspci's decode
 * of each as the expectation: real/README.md), from what an unprivileged read returns, and from
 * corrupt bytes.
 */
class ConfigSpaceTest {

    /** An Intel 82576 NIC function: DevCap MaxPayload 512, DevCtl MaxPayload 256, MaxReadReq 512, RlxdOrd+; no ACS. */
    @Test
    void anEndpointsDeviceControl() {
        PcieConfig c = ConfigSpace.decode("0000:09:00.0", Fixtures.lspciDump("pciutils-cap-pcie-2.lspci-xxxx.txt"));
        assertThat(c.bytesRead()).isEqualTo(4096);
        assertThat(c.maxPayloadSupported()).isEqualTo(512);
        assertThat(c.maxPayload()).isEqualTo(256);
        assertThat(c.maxReadRequest()).isEqualTo(512);
        assertThat(c.relaxedOrdering()).isTrue();
        assertThat(c.extendedRead()).isTrue();
        assertThat(c.acs()).as("its extended capabilities are AER, DSN, ARI and SR-IOV").isNull();
    }

    /** A function that fell off the bus answers every config read with all ones: nothing in it is a register. */
    @Test
    void allOnesIsAGoneFunctionNotRegisterValues() {
        byte[] b = new byte[4096];
        java.util.Arrays.fill(b, (byte) 0xff);
        PcieConfig c = ConfigSpace.decode("0000:18:00.0", b);
        assertThat(c.allOnes()).isTrue();
        assertThat(c.maxPayload()).isNull();
        assertThat(c.maxPayloadSupported()).isNull();
        assertThat(c.maxReadRequest()).isNull();
        assertThat(c.relaxedOrdering()).isNull();
        assertThat(c.acs()).isNull();
        assertThat(ConfigSpace.decode("0000:09:00.0", Fixtures.lspciDump("pciutils-cap-pcie-2.lspci-xxxx.txt")).allOnes()).isFalse();
    }

    /** An Intel 5520 root port: ACSCap SrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+, every ACSCtl bit off. */
    @Test
    void aRootPortsAcs() {
        PcieConfig c = ConfigSpace.decode("0000:00:01.0", Fixtures.lspciDump("pciutils-cap-pcie-1.lspci-xxxx.txt"));
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
        byte[] b = Fixtures.lspciDump("pciutils-cap-pcie-1.lspci-xxxx.txt");
        b[0x156] = 0x1d;
        PcieConfig.Acs acs = ConfigSpace.decode("0000:00:01.0", b).acs();
        assertThat(acs.redirects()).isTrue();
        assertThat(acs.describeControl())
                .isEqualTo("SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-");
    }

    /** What an unprivileged read returns: the first 64 bytes, no capability reached, everything unknown. */
    @Test
    void anUnprivilegedReadLeavesEverythingUnknown() {
        byte[] b = Arrays.copyOf(Fixtures.lspciDump("pciutils-cap-pcie-2.lspci-xxxx.txt"), 64);
        PcieConfig c = ConfigSpace.decode("0000:09:00.0", b);
        assertThat(c.bytesRead()).isEqualTo(64);
        assertThat(c.maxPayload()).isNull();
        assertThat(c.maxReadRequest()).isNull();
        assertThat(c.relaxedOrdering()).isNull();
        assertThat(c.acs()).isNull();
        assertThat(c.extendedRead()).isFalse();
    }

    /** 256 bytes (no extended space): the Device Control registers, ACS unknown. */
    @Test
    void withoutExtendedSpaceAcsIsUnknown() {
        byte[] b = Arrays.copyOf(Fixtures.lspciDump("pciutils-cap-pcie-1.lspci-xxxx.txt"), 256);
        PcieConfig c = ConfigSpace.decode("0000:00:01.0", b);
        assertThat(c.maxReadRequest()).isEqualTo(128);
        assertThat(c.acs()).isNull();
        assertThat(c.extendedRead()).isFalse();
    }

    /** A capability list that loops, a pointer past the end: the walk ends, nothing is made up. */
    @Test
    void aLoopingOrTruncatedListEnds() {
        byte[] loop = Fixtures.lspciDump("pciutils-cap-pcie-1.lspci-xxxx.txt");
        loop[0x61] = 0x40; // MSI's next points back to the first capability
        loop[0x102] = 0x01;
        loop[0x103] = 0x10; // AER's next is 0x100, itself
        PcieConfig c = ConfigSpace.decode("x", loop);
        assertThat(c.maxPayload()).isNull();
        assertThat(c.acs()).isNull(); // 0x100 -> 0x100: never reaches 0x150
        byte[] cut = Arrays.copyOf(Fixtures.lspciDump("pciutils-cap-pcie-2.lspci-xxxx.txt"), 0xa6);
        assertThat(ConfigSpace.decode("x", cut).maxPayload()).isNull(); // the PCIe capability's registers past the end
        assertThat(ConfigSpace.decode("x", new byte[0]).bytesRead()).isZero();
    }

    static Stream<Long> seeds() {
        return IntStream.range(0, 200).mapToObj(i -> 0xfabc0de0L + i);
    }

    /** Random bytes (seeded): the decode never throws and every size it reports is one the encoding allows. */
    @ParameterizedTest
    @MethodSource("seeds")
    void randomBytesNeverThrow(long seed) {
        Random r = new Random(seed);
        byte[] b = new byte[new int[] {0, 1, 63, 64, 255, 256, 300, 4095, 4096}[r.nextInt(9)]];
        r.nextBytes(b);
        if (b.length > 0x34) {
            b[0x06] |= 0x10; // a capability list, so the walk runs
        }
        PcieConfig c = ConfigSpace.decode("x", b);
        for (Integer v : new Integer[] {c.maxPayload(), c.maxPayloadSupported(), c.maxReadRequest()}) {
            assertThat(v == null || Integer.bitCount(v) == 1 && v >= 128 && v <= 4096).as(String.valueOf(v)).isTrue();
        }
    }
}
