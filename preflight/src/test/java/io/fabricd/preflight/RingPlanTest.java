package io.fabricd.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RingPlanTest {
    @Test
    void theRingPairsEachNodeWithItsNext() {
        assertThat(RingPlan.ring(List.of("a", "b", "c"))).containsExactly(new Pair("a", "b"), new Pair("b", "c"), new Pair("c", "a"));
        assertThat(RingPlan.ring(List.of("a", "b"))).containsExactly(new Pair("a", "b"));
        assertThat(RingPlan.ring(List.of("a"))).isEmpty();
        assertThat(RingPlan.ring(List.of())).isEmpty();
    }

    @Test
    void eachNodeRunsOneTestAndServesOne() {
        List<String> nodes = Hostlist.parse("gpu[001-100]");
        Map<String, Integer> runs = new HashMap<>();
        Map<String, Integer> serves = new HashMap<>();
        for (Pair p : RingPlan.ring(nodes)) {
            runs.merge(p.a(), 1, Integer::sum);
            serves.merge(p.b(), 1, Integer::sum);
        }
        assertThat(runs.values()).hasSize(100).containsOnly(1);
        assertThat(serves.values()).hasSize(100).containsOnly(1);
    }

    @Test
    void repairPairsEachSuspectWithGoodNodesItHasNotMet() {
        List<String> good = List.of("g1", "g2", "g3", "g4");
        Set<Pair> tested = Set.of(new Pair("g1", "s1"), new Pair("s1", "s2"));
        List<Pair> plan = RingPlan.repair(List.of("s1", "s2"), good, tested);
        assertThat(plan).containsExactly(new Pair("s1", "g2"), new Pair("s1", "g3"), new Pair("s2", "g4"), new Pair("s2", "g1"));
    }

    @Test
    void repairSpreadsTheLoadAndNeverRepeatsAPair() {
        List<String> good = Hostlist.parse("g[01-10]");
        List<String> suspects = Hostlist.parse("s[01-05]");
        List<Pair> plan = RingPlan.repair(suspects, good, Set.of());
        assertThat(plan).hasSize(10);
        assertThat(plan.stream().map(Pair::b).distinct()).hasSize(10);
        Set<Pair> seen = new HashSet<>();
        for (Pair p : plan) {
            assertThat(seen.add(p.unordered())).isTrue();
        }
    }

    @Test
    void repairGivesWhatThereIs() {
        assertThat(RingPlan.repair(List.of("s1"), List.of(), Set.of())).isEmpty();
        assertThat(RingPlan.repair(List.of("s1"), List.of("g1"), Set.of(new Pair("s1", "g1")))).isEmpty();
        assertThat(RingPlan.repair(List.of("s1", "s1"), List.of("g1", "s1"), Set.of())).containsExactly(new Pair("s1", "g1"));
    }
}
