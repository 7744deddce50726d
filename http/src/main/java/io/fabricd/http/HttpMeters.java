package io.fabricd.http;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * The server's own meters, in the registry and under the names its user gives (the agent: its
 * declared families), each counted where it happens.
 */
public final class HttpMeters {
    /** What the server counts. */
    public enum Kind {
        CONNECTIONS, CONNECTIONS_SHED, CONNECTIONS_REFUSED, REQUESTS_REJECTED, AUTH_FAILURES, AUTH_VERIFICATIONS, AUTH_THROTTLED
    }

    private final MeterRegistry registry;
    private final Function<Kind, String> name;
    private final Function<Kind, String> help;

    /**
     * @param name the Micrometer name of each kind
     * @param help its description
     */
    public HttpMeters(MeterRegistry registry, Function<Kind, String> name, Function<Kind, String> help) {
        this.registry = registry;
        this.name = name;
        this.help = help;
    }

    Counter counter(Kind k) {
        return Counter.builder(name.apply(k)).description(help.apply(k)).register(registry);
    }

    <T> void counter(Kind k, T obj, ToDoubleFunction<T> f) {
        FunctionCounter.builder(name.apply(k), obj, f).description(help.apply(k)).register(registry);
    }

    <T> void gauge(Kind k, T obj, ToDoubleFunction<T> f) {
        Gauge.builder(name.apply(k), obj, f).description(help.apply(k)).register(registry);
    }
}
