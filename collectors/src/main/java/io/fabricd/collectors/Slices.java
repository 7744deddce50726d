package io.fabricd.collectors;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The slices a stage may read: those of the types it {@link Stage#needs}, each present when its
 * stage ran and succeeded. Asking for a type not declared is a bug in the stage (the collection
 * would not order it after the producer), and fails it.
 */
public final class Slices {
    private final Map<Class<?>, Object> slices;
    private final Set<Class<?>> allowed;

    private Slices(Map<Class<?>, Object> slices, Set<Class<?>> allowed) {
        this.slices = slices;
        this.allowed = allowed;
    }

    /** The given slices, each under its own class: how a test runs one stage alone. */
    public static Slices of(Object... given) {
        Map<Class<?>, Object> m = new HashMap<>();
        for (Object s : given) {
            m.put(s.getClass(), s);
        }
        return new Slices(Map.copyOf(m), null);
    }

    /** The slices {@code stage} may read, out of those produced so far. */
    public static Slices forStage(Map<Class<?>, Object> produced, Stage<?> stage) {
        return new Slices(produced, Set.copyOf(stage.needs()));
    }

    /** The slice of type {@code type}, or empty when its stage is disabled, failed or absent. */
    public <T> Optional<T> get(Class<T> type) {
        if (allowed != null && !allowed.contains(type)) {
            throw new IllegalStateException("reads a " + type.getSimpleName() + " slice without declaring it in needs()");
        }
        return Optional.ofNullable(type.cast(slices.get(type)));
    }
}
