package io.fabricd.probes.mesh;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IntSummaryStatistics;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PlannerTest {

    static List<Planner.Peer> fleet(int racks, int perRack) {
        List<Planner.Peer> all = new ArrayList<>();
        for (int r = 0; r < racks; r++) {
            for (int h = 0; h < perRack; h++) {
                all.add(new Planner.Peer(String.format("r%03d-h%02d", r, h), String.format("r%03d", r)));
            }
        }
        return all;
    }

    /** 10 000 hosts in 250 racks: probes per host, series per host, every rack pair covered. */
    @Test
    void tenThousandHostsInTwoHundredFiftyRacks() {
        List<Planner.Peer> all = fleet(250, 40);
        Map<String, Set<String>> covered = new HashMap<>();
        IntSummaryStatistics perHost = new IntSummaryStatistics();
        for (Planner.Peer self : all) {
            List<Planner.Peer> plan = Planner.plan(self, all, 2, 64);
            perHost.accept(plan.size());
            for (Planner.Peer p : plan) {
                assertThat(p.id()).isNotEqualTo(self.id());
                covered.computeIfAbsent(self.rack(), r -> new HashSet<>()).add(p.rack());
            }
        }
        // own rack 39 + rack-pair duty ~249/40 + k 2: grows with rack size and racks/rack size, not with the fleet
        assertThat(perHost.getMin()).isGreaterThanOrEqualTo(39 + 2);
        assertThat(perHost.getMax()).isLessThanOrEqualTo(39 + 2 + 20);
        assertThat(perHost.getAverage()).isBetween(39 + 2 + 5.0, 39 + 2 + 8.0);
        // every ordered rack pair has at least one probe stream
        for (int r = 0; r < 250; r++) {
            assertThat(covered.get(String.format("r%03d", r))).as("rack " + r).hasSize(250);
        }
        int sizes = 2;
        // per peer and size by default: five counters and two recent quantiles (ProbeCardinalityTest);
        // the RTT histograms are per peer rack and not counted here
        int seriesPerPeerAndSize = 5 /* sent, lost, late, duplicated, reordered */ + 2 /* rtt_recent 0.5, 0.99 */;
        System.out.printf("planner simulation: %.1f probed peers per host (min %d, max %d), %.0f per-peer probe series per host%n",
                perHost.getAverage(), perHost.getMin(), perHost.getMax(), perHost.getAverage() * sizes * seriesPerPeerAndSize);
    }

    @Test
    void stableUnderChurn() {
        List<Planner.Peer> all = fleet(20, 10);
        Planner.Peer self = all.get(0);
        List<Planner.Peer> before = Planner.plan(self, all, 2, 64);
        // a host of another rack that this host does not probe leaves: the plan stays the same
        Planner.Peer gone = all.stream().filter(p -> !p.rack().equals(self.rack()) && !before.contains(p)).findFirst().orElseThrow();
        List<Planner.Peer> fewer = new ArrayList<>(all);
        fewer.remove(gone);
        assertThat(Planner.plan(self, fewer, 2, 64)).isEqualTo(before);
        // a new host in another rack changes at most one rack-pair choice and one of the k
        List<Planner.Peer> more = new ArrayList<>(all);
        more.add(new Planner.Peer("r005-h99", "r005"));
        List<Planner.Peer> after = Planner.plan(self, more, 2, 64);
        Set<Planner.Peer> changed = new HashSet<>(after);
        changed.removeAll(before);
        assertThat(changed.size()).isLessThanOrEqualTo(2);
    }

    @Test
    void smallListsWithoutRacksAreAFullMesh() {
        List<Planner.Peer> all = List.of(new Planner.Peer("a", ""), new Planner.Peer("b", ""), new Planner.Peer("c", ""));
        assertThat(Planner.plan(all.get(0), all, 2, 64)).extracting(Planner.Peer::id).containsExactly("b", "c");
        assertThat(Planner.plan(all.get(0), all, 2, 1)).hasSize(1); // capped
    }
}
