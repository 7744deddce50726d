package io.fabricd.model.finding;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Collection;
import java.util.List;

/**
 * One value of a finding's evidence: text, a number, a flag, a list, or named values of their own.
 * Each writes itself as the JSON value it stands for; {@link #toString()} is how the text report
 * prints it.
 */
public sealed interface Value permits Value.Text, Value.Num, Value.Flag, Value.Items, Value.Fields {

    record Text(String text) implements Value {
        @JsonValue
        @Override
        public String toString() {
            return text;
        }
    }

    /** @param number as the check computed it: an Integer stays 3 in JSON, a Double 3.0 */
    record Num(@JsonValue Number number) implements Value {
        @Override
        public String toString() {
            return number.toString();
        }
    }

    record Flag(@JsonValue boolean flag) implements Value {
        @Override
        public String toString() {
            return Boolean.toString(flag);
        }
    }

    record Items(@JsonValue List<Value> items) implements Value {
        public Items {
            items = List.copyOf(items);
        }

        @Override
        public String toString() {
            return items.toString();
        }
    }

    record Fields(@JsonValue Evidence fields) implements Value {
        @Override
        public String toString() {
            return fields.toString();
        }
    }

    static Value of(String s) {
        return s == null ? null : new Text(s);
    }

    static Value of(Number n) {
        return n == null ? null : new Num(n);
    }

    static Value of(boolean b) {
        return new Flag(b);
    }

    static Value of(Evidence e) {
        return new Fields(e);
    }

    static Value texts(Collection<String> c) {
        return new Items(c.stream().<Value>map(Text::new).toList());
    }

    static Value numbers(Collection<? extends Number> c) {
        return new Items(c.stream().<Value>map(Num::new).toList());
    }

    static Value objects(Collection<Evidence> c) {
        return new Items(c.stream().<Value>map(Fields::new).toList());
    }
}
