package io.fabricd.model;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Text from elsewhere made one line: cut at a word with "...", never split mid-word, control characters shown. */
class OneLineTest {

    @Test
    void aCutEndsAfterAWholeWord() {
        String fix = "Enable PFC on priority 3 on the host and on the switch port: `dcb pfc set dev ens8f0np0 prio-pfc 3:on`";
        // the bound falls inside "switch": the cut is before it, without the space
        assertThat(OneLine.of(fix, 50)).isEqualTo("Enable PFC on priority 3 on the host and on the...");
        // the bound falls after "port:": the colon that leads on goes too
        assertThat(OneLine.of(fix, 61)).isEqualTo("Enable PFC on priority 3 on the host and on the switch port...");
        // the bound falls on a space
        assertThat(OneLine.of(fix, 10)).isEqualTo("Enable PFC...");
        assertThat(OneLine.of(fix, fix.length())).isEqualTo(fix);
    }

    @Test
    void aWordLongerThanHalfTheBoundIsCutWhereTheBoundIs() {
        assertThat(OneLine.of("z".repeat(5000), 20)).isEqualTo("z".repeat(20) + "...");
        assertThat(OneLine.of("peer " + "a".repeat(100), 40)).isEqualTo("peer " + "a".repeat(35) + "...");
    }

    @Test
    void controlCharactersAreShownAndNullIsEmpty() {
        assertThat(OneLine.of("  line one\r\nline two\t ")).isEqualTo("line one??line two");
        assertThat(OneLine.of(null)).isEmpty();
    }
}
