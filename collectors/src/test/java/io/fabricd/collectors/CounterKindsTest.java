package io.fabricd.collectors;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.model.CounterWidths;
import io.fabricd.model.TransportCounters;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every counter of every driver in the fixtures (folders and ttar archives, real captures included)
 * has a meaning: a {@code hw_counters/} name is a transport failure of a known type or on the list
 * of traffic, congestion and control-path names; {@code counters/} names are errors, congestion or
 * traffic. A new driver's counter fails here until someone says what it is.
 */
class CounterKindsTest {
    static final Pattern HW = Pattern.compile("hw_counters/([A-Za-z0-9_]+)");

    @Test
    void everyHwCounterOfTheFixturesIsClassified() throws Exception {
        Set<String> names = new TreeSet<>();
        try (Stream<Path> all = Files.walk(Fixtures.dir())) {
            for (Path p : all.toList()) {
                String s = p.toString();
                if (s.contains("/hw_counters/") && Files.isRegularFile(p)) {
                    names.add(p.getFileName().toString());
                } else if (s.endsWith(".ttar")) {
                    Matcher m = HW.matcher(Files.readString(p));
                    while (m.find()) {
                        names.add(m.group(1));
                    }
                }
            }
        }
        assertThat(names).hasSizeGreaterThan(150);
        Set<String> unknown = new TreeSet<>();
        for (String n : names) {
            if (TransportCounters.type(n) == null && !TransportCounters.OTHER.contains(n)) {
                unknown.add(n);
            }
        }
        assertThat(unknown).as("hw_counters names neither a transport failure nor traffic/congestion/control").isEmpty();
        assertThat(TransportCounters.names().keySet()).as("no name on both lists").doesNotContainAnyElementsOf(TransportCounters.OTHER);
    }

    @Test
    void mlx4QueueErrorCountersAreTransportFailures() {
        assertThat(TransportCounters.type("sq_num_tree")).isEqualTo(TransportCounters.Type.RETRIES_EXCEEDED);
        assertThat(TransportCounters.type("sq_num_rree")).isEqualTo(TransportCounters.Type.RNR_RETRIES_EXCEEDED);
        assertThat(TransportCounters.type("rq_num_oos")).isEqualTo(TransportCounters.Type.OUT_OF_SEQUENCE);
        assertThat(TransportCounters.type("rq_num_lle")).isEqualTo(TransportCounters.Type.LOCAL_ERROR);
        assertThat(TransportCounters.type("rq_num_wrfe")).isEqualTo(TransportCounters.Type.FLUSHED);
        assertThat(TransportCounters.type("rq_num_rire")).isEqualTo(TransportCounters.Type.REMOTE_INVALID_REQUEST);
        assertThat(TransportCounters.type("rq_num_rae")).isEqualTo(TransportCounters.Type.REMOTE_ACCESS);
    }

    @Test
    void portXmitWaitIsCongestionNotAnError() {
        assertThat(CounterWidths.kind("port_xmit_wait")).isEqualTo(CounterWidths.Kind.CONGESTION);
        assertThat(CounterWidths.kind("symbol_error")).isEqualTo(CounterWidths.Kind.ERROR);
        assertThat(CounterWidths.kind("port_xmit_discards")).isEqualTo(CounterWidths.Kind.ERROR);
        assertThat(CounterWidths.kind("port_rcv_data")).isEqualTo(CounterWidths.Kind.TRAFFIC);
        assertThat(CounterWidths.kind("unicast_xmit_packets")).isEqualTo(CounterWidths.Kind.TRAFFIC);
    }
}
