package io.fabricd.model.finding;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FindingTest {
    @Test
    void evidenceKeepsTheChecksOrderAndReplacesANameGivenAgain() {
        Evidence e = Evidence.builder().put("zeta", 1).put("alpha", "two").put("zeta", 3).put("flag", true)
                .numbers("list", List.of(4, 5)).build();
        assertThat(e.json().keySet()).containsExactly("zeta", "alpha", "flag", "list");
        assertThat(e.number("zeta")).isEqualTo(3);
        assertThat(e.text("alpha")).isEqualTo("two");
        assertThat(e.get("list")).hasToString("[4, 5]");
        assertThat(e).hasToString("{zeta=3, alpha=two, flag=true, list=[4, 5]}");
    }

    @Test
    void subjectShowsItsPresentPartsByName() {
        Subject s = Subject.port("mlx5_0", 1).withNetdev("eth0").withPriority(3);
        assertThat(s.parts()).containsExactly(Map.entry("device", "mlx5_0"), Map.entry("netdev", "eth0"),
                Map.entry("port", "1"), Map.entry("priority", "3"));
        assertThat(s).hasToString("{device=mlx5_0, netdev=eth0, port=1, priority=3}");
        assertThat(new Finding("c", Severity.INFO, null, "s", (Evidence) null, "r").subject().isHost()).isTrue();
    }
}
