package io.fabricd.collectors.run;

import io.fabricd.collectors.Stage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Orders stages so that each runs after the producers of the slices it needs: the given order where
 * it already does, a producer moved ahead otherwise. Two producers of one slice type, a needed type
 * no stage produces, or a cycle is a construction error, never a silently missing slice.
 */
final class StageOrder {
    private StageOrder() {
    }

    static List<Stage<?>> of(List<? extends Stage<?>> stages) {
        Map<Class<?>, Stage<?>> producers = new HashMap<>();
        for (Stage<?> s : stages) {
            Stage<?> other = producers.put(s.produces(), s);
            if (other != null) {
                throw new IllegalArgumentException("stages " + other.name() + " and " + s.name() + " both produce "
                        + s.produces().getSimpleName());
            }
        }
        for (Stage<?> s : stages) {
            for (Class<?> need : s.needs()) {
                if (!producers.containsKey(need)) {
                    throw new IllegalArgumentException("stage " + s.name() + " needs " + need.getSimpleName()
                            + ", which no stage of the collection produces");
                }
            }
        }
        Set<Stage<?>> placed = new LinkedHashSet<>();
        for (Stage<?> s : stages) {
            place(s, producers, placed, new ArrayList<>());
        }
        return List.copyOf(placed);
    }

    /** Places {@code s} after its producers (depth first); {@code path} is the chain being placed, to name a cycle. */
    private static void place(Stage<?> s, Map<Class<?>, Stage<?>> producers, Set<Stage<?>> placed, List<String> path) {
        if (placed.contains(s)) {
            return;
        }
        if (path.contains(s.name())) {
            path.add(s.name());
            throw new IllegalArgumentException("stages need each other's slices: " + String.join(" -> ", path));
        }
        path.add(s.name());
        for (Class<?> need : s.needs()) {
            place(producers.get(need), producers, placed, path);
        }
        path.remove(path.size() - 1);
        placed.add(s);
    }
}
