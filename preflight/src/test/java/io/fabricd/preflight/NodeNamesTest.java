package io.fabricd.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NodeNamesTest {
    @Test
    void aNodeIsItsAgentsNameShortOrFullIgnoringCase() {
        assertThat(NodeNames.same("gpu07", "gpu07")).isTrue();
        assertThat(NodeNames.same("GPU07", "gpu07")).isTrue();
        assertThat(NodeNames.same("gpu07", "gpu07.cluster.local")).isTrue();
        assertThat(NodeNames.same("gpu07.cluster.local.", "gpu07")).isTrue();
        assertThat(NodeNames.same("gpu07.cluster.local", "gpu07.cluster.local.")).isTrue();
    }

    @Test
    void anotherNodesAgentIsNot() {
        assertThat(NodeNames.same("gpu07", "gpu12")).isFalse();
        assertThat(NodeNames.same("gpu07", "gpu070")).isFalse();
        assertThat(NodeNames.same("gpu07", "gpu07-bmc")).isFalse();
        // two full names of other domains, and a prefix that is not a whole label
        assertThat(NodeNames.same("gpu07.a.example", "gpu07.b.example")).isFalse();
        assertThat(NodeNames.same("gpu", "gpu07.cluster")).isFalse();
        // an address is no short name of another
        assertThat(NodeNames.same("10", "10.0.0.7")).isFalse();
        assertThat(NodeNames.same("gpu07", "")).isFalse();
        assertThat(NodeNames.same("gpu07", null)).isFalse();
    }
}
