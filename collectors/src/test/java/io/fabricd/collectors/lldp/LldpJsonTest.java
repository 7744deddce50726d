package io.fabricd.collectors.lldp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** What lldpcli's JSON writer cannot have printed is refused with words saying what is wrong. */
class LldpJsonTest {
    @Test
    void brokenShapesAreNamed() {
        assertThatThrownBy(() -> LldpJson.parse("[]")).hasMessage("no \"lldp\" object at the top: not lldpcli -f json output");
        assertThatThrownBy(() -> LldpJson.parse("{\"lldp\": \"x\"}")).hasMessage("\"lldp\" is STRING, not an object");
        assertThatThrownBy(() -> LldpJson.parse("{\"lldp\": {\"interface\": 3}}"))
                .hasMessage("\"interface\" is NUMBER, not an object or a list");
        assertThatThrownBy(() -> LldpJson.parse("{\"lldp\": {\"interface\": {\"eth0\": {\"port\": {}}}}}"))
                .hasMessage("interface eth0 has no \"chassis\" object");
        assertThatThrownBy(() -> LldpJson.parse("{\"lldp\": {\"interface\": {\"eth0\": {\"chassis\": {\"a\": {}, \"b\": {}}}}}}"))
                .hasMessage("the chassis on eth0 has neither an \"id\" nor one system name as its key");
        assertThatThrownBy(() -> LldpJson.parse("{\"lldp\": {\"interface\": {\"eth0\": {\"chassis\": {\"id\": {\"value\": \"x\"}}}}}}"))
                .hasMessage("interface eth0 has no \"port\" object");
    }

    @Test
    void nestingBeyondJacksonsLimitIsRefusedInWords() {
        assertThatThrownBy(() -> LldpJson.parse("[".repeat(5000))).isInstanceOf(LldpJson.Malformed.class)
                .hasMessageStartingWith("not valid JSON (").hasMessageContaining("nesting depth");
    }

    @Test
    void lldpdsAgeIsReadAndWhatItCannotSayIsUnknown() {
        assertThat(LldpJson.age("99999999999999999999 days, 00:00:00")).isNull();
        assertThat(LldpJson.age("0 day, 99999999999999999999:00:00")).isNull();
        assertThat(LldpJson.age("0 day, 00:02:00")).isEqualTo(120L);
        assertThat(LldpJson.age("3 days, 04:11:09")).isEqualTo(3 * 86_400 + 4 * 3600 + 11 * 60 + 9L);
        assertThat(LldpJson.age("too much")).isNull();
    }
}
