package io.fabricd.collectors;

import java.util.List;

/**
 * One concern of the host (RDMA ports, netdevs, DCB, topology...) as a step of a collection: it
 * reads the host through {@link CollectContext}, asks for the slices of other stages it builds on
 * by their type ({@link #needs}, {@link Slices#get}), and returns its own immutable slice. The
 * collection runs stages after the producers of what they need ({@code run.HostCollection}) and builds
 * the host model from the slices.
 *
 * <p>A stage never throws for bad input: it records each failed path with
 * {@link CollectContext#error} and degrades only what that path concerns. If it throws anyway, it
 * is reported failed, its slice is absent, and the stages that need it still run without it.
 *
 * @param <S> the slice this stage returns
 */
public interface Stage<S> {

    /** Short name: the {@code collector} label of fabric_collector_success, a name in {@code collection.disabled_collectors}. */
    String name();

    /** The type of the slice {@link #collect} returns; one stage per type in a collection. */
    Class<S> produces();

    /** The slice types this stage reads from {@link Slices}; each is produced by another stage of the collection. */
    default List<Class<?>> needs() {
        return List.of();
    }

    /** This stage's slice of the host, from the host and the slices it needs (each may be absent). */
    S collect(CollectContext ctx, Slices in);

    /** A stage whose name, slice type and needs are given once, to its constructor. */
    abstract class Declared<S> implements Stage<S> {
        private final String name;
        private final Class<S> produces;
        private final List<Class<?>> needs;

        protected Declared(String name, Class<S> produces, Class<?>... needs) {
            this.name = name;
            this.produces = produces;
            this.needs = List.of(needs);
        }

        @Override
        public final String name() {
            return name;
        }

        @Override
        public final Class<S> produces() {
            return produces;
        }

        @Override
        public final List<Class<?>> needs() {
            return needs;
        }
    }
}
