package io.fabricd.diagnosis;

import io.fabricd.model.finding.Evidence;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Value;
import java.util.LinkedHashMap;
import java.util.Map;

/** A finding's subject and evidence as plain Java values, for assertions that name a value. */
public final class Plain {
    private Plain() {
    }

    public static Map<String, Object> evidence(Finding f) {
        return of(f.evidence());
    }

    /** The present parts of the subject; port and priority as Integer. */
    public static Map<String, Object> subject(Finding f) {
        Map<String, Object> m = new LinkedHashMap<>(f.subject().parts());
        if (f.subject().port() != null) {
            m.put("port", f.subject().port());
        }
        if (f.subject().priority() != null) {
            m.put("priority", f.subject().priority());
        }
        return m;
    }

    public static Map<String, Object> of(Evidence e) {
        Map<String, Object> m = new LinkedHashMap<>();
        e.entries().forEach(x -> m.put(x.name(), of(x.value())));
        return m;
    }

    public static Object of(Value v) {
        if (v instanceof Value.Text t) {
            return t.text();
        } else if (v instanceof Value.Num n) {
            return n.number();
        } else if (v instanceof Value.Flag f) {
            return f.flag();
        } else if (v instanceof Value.Items i) {
            return i.items().stream().map(Plain::of).toList();
        } else if (v instanceof Value.Fields f) {
            return of(f.fields());
        }
        return null;
    }
}
