package io.fabricd.model.finding;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The values a check saw, so a human can confirm its finding: named, in the order the check gave
 * them (the JSON object keeps it). A value may be null: looked for and not known.
 */
public final class Evidence {
    public static final Evidence NONE = new Evidence(List.of());

    /** One named value; {@code value} null when not known. */
    public record Entry(String name, Value value) {
    }

    private final List<Entry> entries;

    private Evidence(List<Entry> entries) {
        this.entries = Collections.unmodifiableList(entries);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Named texts, in the map's order (a sorted map: by name). */
    public static Evidence texts(Map<String, String> m) {
        Builder b = builder();
        m.forEach(b::put);
        return b.build();
    }

    /** Numbers by name (a lane, a state), in the map's order. */
    public static Evidence numbers(Map<?, ? extends Number> m) {
        Builder b = builder();
        m.forEach((k, v) -> b.put(k.toString(), v));
        return b.build();
    }

    public List<Entry> entries() {
        return entries;
    }

    public boolean has(String name) {
        return entries.stream().anyMatch(e -> e.name().equals(name));
    }

    /** The value of {@code name}; null when absent or not known. */
    public Value get(String name) {
        return entries.stream().filter(e -> e.name().equals(name)).map(Entry::value).findFirst().orElse(null);
    }

    /** The number of {@code name}; null when it is not a number. */
    public Number number(String name) {
        return get(name) instanceof Value.Num n ? n.number() : null;
    }

    /** The text of {@code name}; null when it is not text. */
    public String text(String name) {
        return get(name) instanceof Value.Text t ? t.text() : null;
    }

    /** The JSON object, in the check's order. */
    @JsonValue
    public Map<String, Value> json() {
        Map<String, Value> m = new LinkedHashMap<>();
        entries.forEach(e -> m.put(e.name(), e.value()));
        return m;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Evidence e && e.entries.equals(entries);
    }

    @Override
    public int hashCode() {
        return entries.hashCode();
    }

    /** {@code {name=value, ...}}, as the text report prints a nested value. */
    @Override
    public String toString() {
        return json().toString();
    }

    /** Collects entries in order; a name given again replaces its value in place. */
    public static final class Builder {
        private final List<Entry> entries = new ArrayList<>();

        public Builder put(String name, Value v) {
            for (int i = 0; i < entries.size(); i++) {
                if (entries.get(i).name().equals(name)) {
                    entries.set(i, new Entry(name, v));
                    return this;
                }
            }
            entries.add(new Entry(name, v));
            return this;
        }

        public Builder put(String name, String v) {
            return put(name, Value.of(v));
        }

        public Builder put(String name, Number v) {
            return put(name, Value.of(v));
        }

        public Builder put(String name, Boolean v) {
            return put(name, v == null ? null : Value.of(v.booleanValue()));
        }

        public Builder put(String name, Evidence v) {
            return put(name, v == null ? null : Value.of(v));
        }

        public Builder texts(String name, Collection<String> v) {
            return put(name, Value.texts(v));
        }

        public Builder numbers(String name, Collection<? extends Number> v) {
            return put(name, Value.numbers(v));
        }

        public Builder objects(String name, Collection<Evidence> v) {
            return put(name, Value.objects(v));
        }

        public Evidence build() {
            return new Evidence(new ArrayList<>(entries));
        }
    }
}
