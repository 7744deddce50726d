package io.fabricd.diagnosis;

import io.fabricd.collectors.model.HostModel;
import java.util.List;

/**
 * One check: an id of interfaces.md, what it reads, and its verdict on a host. Checks that need
 * rates use {@code previous} and return nothing without it ({@link #needsHistory()}). Adding a
 * check is adding one class and listing it in {@link Diagnosis#CHECKS}.
 */
public interface Check {
    String id();

    /** True when the check compares two collections (rates). */
    default boolean needsHistory() {
        return false;
    }

    List<Finding> evaluate(HostModel current, HostModel previous);
}
