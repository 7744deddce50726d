package io.fabricd.model.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabricd.model.topology.Placement.Source;
import java.util.List;
import org.junit.jupiter.api.Test;

class TopologyTest {
    private static Placement p(String node, String... switches) {
        return new Placement(node, List.of(switches), null, Source.FILE);
    }

    @Test
    void aPathGoesUpToTheLowestSharedSwitchAndDown() {
        Topology t = Topology.of(List.of(p("n1", "leaf-1", "spine-1"), p("n2", "leaf-1", "spine-1"), p("n3", "leaf-2", "spine-1")));
        assertThat(t.path("n1", "n2").orElseThrow()).extracting(Element::id)
                .containsExactly("nic:n1", "cable:n1", "switch:leaf-1", "cable:n2", "nic:n2");
        assertThat(t.path("n1", "n3").orElseThrow()).extracting(Element::id)
                .containsExactly("nic:n1", "cable:n1", "switch:leaf-1", "uplink:leaf-1>spine-1", "switch:spine-1",
                        "uplink:leaf-2>spine-1", "switch:leaf-2", "cable:n3", "nic:n3");
        assertThat(t.tier("spine-1")).isEqualTo(1);
        assertThat(t.tier("nowhere")).isEqualTo(-1);
        assertThat(t.parent("leaf-2")).isEqualTo("spine-1");
        assertThat(t.parent("spine-1")).isNull();
        assertThat(t.path("n1", "unknown")).isEmpty();
    }

    @Test
    void nodesUnderNoSharedSwitchHaveNoKnownPath() {
        Topology t = Topology.of(List.of(p("n1", "leaf-1"), p("n2", "leaf-2")));
        assertThat(t.path("n1", "n2")).isEmpty();
        assertThat(Topology.of(List.of(new Placement("n1", List.of(), "nvl-1", Source.SLURM), p("n2", "leaf-2"))).path("n1", "n2")).isEmpty();
    }

    @Test
    void disagreeingPlacementsAreRefusedNamingBoth() {
        assertThatThrownBy(() -> Topology.of(List.of(p("n1", "leaf-1"), p("n1", "leaf-2"))))
                .hasMessageContaining("node n1 is placed twice").hasMessageContaining("leaf-1").hasMessageContaining("leaf-2");
        assertThatThrownBy(() -> Topology.of(List.of(p("n1", "leaf-1", "spine-1"), p("n2", "leaf-1", "spine-2"))))
                .hasMessageContaining("switch leaf-1 is under spine-1 (node n1) and under spine-2 (node n2)");
        // a cycle: a above b for one node, b above a for another
        assertThatThrownBy(() -> Topology.of(List.of(p("n1", "a", "b"), p("n2", "b", "a"))))
                .hasMessageContaining("switch b is at tier 1 above node n1 and at tier 0 above node n2");
        assertThatThrownBy(() -> Topology.of(List.of(p("n1", "n2"), p("n2", "leaf-1")))).hasMessageContaining("n2 is both a node and a switch");
    }

    @Test
    void namesThatAreNotNamesAreRefusedQuoted() {
        assertThatThrownBy(() -> p("n1", "leaf 1")).hasMessageContaining("not a switch name: \"leaf 1\"");
        assertThatThrownBy(() -> p("", "leaf-1")).hasMessageContaining("not a node name: \"\"");
        assertThatThrownBy(() -> p("n1", "x\ny")).hasMessageContaining("\"x\\x0ay\"");
        assertThat(Names.valid("Ethernet1/1")).isTrue();
        assertThat(Names.valid("gpu-001.cluster.example")).isTrue();
        assertThat(Names.valid("-leaf")).isFalse();
        // what reorders or hides text on a terminal is escaped too
        assertThat(Names.quoted("leaf-\u202e70\u2028\u0085")).isEqualTo("\"leaf-\\u202e70\\u2028\\u0085\"");
        assertThat(Names.quoted("leaf-é7")).isEqualTo("\"leaf-é7\"");
    }
}
