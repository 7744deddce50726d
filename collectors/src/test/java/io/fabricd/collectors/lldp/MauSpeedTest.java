package io.fabricd.collectors.lldp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** MAU type names as lldpd prints them (src/lib/atoms/port.c), to Mb/s. */
class MauSpeedTest {
    @Test
    void namesOfOneSpeed() {
        assertThat(MauSpeed.mbps("10BaseT")).isEqualTo(10L);
        assertThat(MauSpeed.mbps("100BaseTXFD")).isEqualTo(100L);
        assertThat(MauSpeed.mbps("1000BaseXFD")).isEqualTo(1000L);
        assertThat(MauSpeed.mbps("10GigBaseR")).isEqualTo(10_000L);
        assertThat(MauSpeed.mbps("2p5GigT")).isEqualTo(2500L);
        assertThat(MauSpeed.mbps("5GigT")).isEqualTo(5000L);
        assertThat(MauSpeed.mbps("25GbaseCR")).isEqualTo(25_000L);
        assertThat(MauSpeed.mbps("100GbaseCR4")).isEqualTo(100_000L);
        assertThat(MauSpeed.mbps("200GbaseCR4")).isEqualTo(200_000L);
        assertThat(MauSpeed.mbps("400GbaseR")).isEqualTo(400_000L);
    }

    @Test
    void namesOfNoOneSpeed() {
        assertThat(MauSpeed.mbps("10G1GbasePRXD1")).isNull(); // 10G down, 1G up
        assertThat(MauSpeed.mbps("AUI")).isNull();
        assertThat(MauSpeed.mbps("10PassTS")).isNull();
        assertThat(MauSpeed.mbps("unknown")).isNull();
        assertThat(MauSpeed.mbps(null)).isNull();
        assertThat(MauSpeed.mbps("99999999999999999999GbaseCR4")).isNull(); // more than a long holds
        assertThat(MauSpeed.mbps("9999999999999999GbaseCR4")).isNull(); // times 1000 would overflow
        assertThat(MauSpeed.mbps("999999GbaseCR4")).isEqualTo(999_999_000L);
    }
}
