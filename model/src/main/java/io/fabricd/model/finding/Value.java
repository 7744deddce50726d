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
    record Num(Number number) implements Value {
        @JsonValue
        public Number json() {
            return number;
        }

        @Override
        public String toString() {
            return number.toString();
        }
    }

    record Flag(boolean flag) implements Value {
        @JsonValue
        public boolean json() {
            return flag;
        }

        @Override
        public String toString() {
            return Boolean.toString(flag);
        }
    }

    record Items(List<Value> items) implements Value {
        public Items {
            items = List.copyOf(items);
        }

        @JsonValue
        public List<Value> json() {
            return items;
        }

        @Override
        public String toString() {
            return items.toString();
        }
    }

    record Fields(Evidence fields) implements Value {
        @JsonValue
        public Evidence json() {
            return fields;
        }

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
        return new Items(c.stream().map(s -> (Value) new Text(s)).toList());
    }

    static Value numbers(Collection<? extends Number> c) {
        return new Items(c.stream().map(n -> (Value) new Num(n)).toList());
    }

    static Value objects(Collection<Evidence> c) {
        return new Items(c.stream().map(e -> (Value) new Fields(e)).toList());
    }
}
