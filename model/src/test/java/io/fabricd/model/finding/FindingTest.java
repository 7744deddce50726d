package io.fabricd.model.finding;


import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FindingTest {
    @Test
    void evidenceKeepsTheChecksOrderOrElseGoesByName() {
        Map<String, Object> ordered = new LinkedHashMap<>();
        ordered.put("zeta", 1);
        ordered.put("alpha", 2);
        assertThat(new Finding("c", Severity.INFO, Map.of(), "s", ordered, "r").evidence().keySet())
                .containsExactly("zeta", "alpha");
        // Map.of iterates in an order that changes from one JVM run to the next: the JSON would too
        Map<String, Object> unordered = Map.of("d", 4, "b", 2, "a", 1, "c", 3, "e", 5);
        assertThat(new Finding("c", Severity.INFO, Map.of(), "s", unordered, "r").evidence().keySet())
                .containsExactly("a", "b", "c", "d", "e");
    }
}
