package io.fabricd.gate.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabricd.gate.wire.PreflightWire.BandwidthAnswer;
import io.fabricd.gate.wire.PreflightWire.BandwidthRequest;
import io.fabricd.gate.wire.PreflightWire.LeftOut;
import io.fabricd.gate.wire.PreflightWire.PeerResult;
import io.fabricd.gate.wire.PreflightWire.Placement;
import io.fabricd.gate.wire.PreflightWire.ProbeAnswer;
import io.fabricd.gate.wire.PreflightWire.ProbeRequest;
import io.fabricd.gate.wire.PreflightWire.StateAnswer;
import io.fabricd.gate.wire.PreflightWire.StateRequest;
import io.fabricd.gate.wire.PreflightWire.Window;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The preflight wire format, pinned: each record's JSON as a gate and an agent of this build write
 * it (the fields and their order of the release before it, plus {@code version}), and the limits a
 * reader holds an answer to.
 */
class PreflightWireTest {
    private static String json(Object o) throws Exception {
        return PreflightWire.ANSWERS.writeValueAsString(o);
    }

    @Test
    void theRequestsKeepTheirShape() throws Exception {
        assertThat(json(new StateRequest(PreflightWire.VERSION, List.of("a:9530")))).isEqualTo("{\"version\":1,\"peers\":[\"a:9530\"]}");
        assertThat(json(new ProbeRequest(PreflightWire.VERSION, List.of("a:9530", "b:9530"), 50, 64)))
                .isEqualTo("{\"version\":1,\"peers\":[\"a:9530\",\"b:9530\"],\"count\":50,\"size\":64}");
        assertThat(json(new BandwidthRequest(PreflightWire.VERSION, "b:9530", 5000L, 65536L)))
                .isEqualTo("{\"version\":1,\"peer\":\"b:9530\",\"duration_ms\":5000,\"size\":65536}");
    }

    @Test
    void theAnswersKeepTheirShape() throws Exception {
        JsonNode finding = PreflightWire.ANSWERS.readTree("{\"check\":\"pfc_missing\",\"severity\":\"critical\",\"subject\":{\"port\":1}}");
        Window w = new Window("b", "b:9530", "udp", 64, 100, 1, 0, 3e-5, 4e-5, null, null);
        assertThat(json(new StateAnswer(1, "a", "a.example", "2026-01-01T00:00:00Z", null, List.of(finding), List.of(w), null)))
                .isEqualTo("{\"version\":1,\"node\":\"a\",\"host\":\"a.example\",\"collected_at\":\"2026-01-01T00:00:00Z\",\"findings\":"
                        + "[{\"check\":\"pfc_missing\",\"severity\":\"critical\",\"subject\":{\"port\":1}}],\"probes\":[{\"peer\":\"b\","
                        + "\"peer_address\":\"b:9530\",\"transport\":\"udp\",\"size\":64,\"sent\":100,\"lost\":1,\"late\":0,"
                        + "\"p50_seconds\":3.0E-5,\"p99_seconds\":4.0E-5,\"hold_p50_seconds\":null,\"hold_p90_seconds\":null}]}");
        assertThat(json(new StateAnswer(1, "a", "a", "t", 10.0, List.of(), List.of(), new LeftOut(2, 3))))
                .isEqualTo("{\"version\":1,\"node\":\"a\",\"host\":\"a\",\"collected_at\":\"t\",\"collection_interval_seconds\":10.0,"
                        + "\"findings\":[],\"probes\":[],\"left_out\":{\"findings\":2,\"probes\":3}}");
        // where the host sits, when the agent knows: absent otherwise (above)
        assertThat(json(new StateAnswer(1, "a", "a", "t", null, List.of(), List.of(), null, new Placement(List.of("leaf-07", "spine-1"), "nvl-3",
                "lldp"))))
                .isEqualTo("{\"version\":1,\"node\":\"a\",\"host\":\"a\",\"collected_at\":\"t\",\"findings\":[],\"probes\":[],"
                        + "\"placement\":{\"switches\":[\"leaf-07\",\"spine-1\"],\"accelerator\":\"nvl-3\",\"source\":\"lldp\"}}");
        assertThat(json(new StateAnswer(1, "a", "a", "t", null, List.of(), List.of(), null, new Placement(List.of("leaf-07"), null, "labels"))))
                .endsWith("\"placement\":{\"switches\":[\"leaf-07\"],\"accelerator\":null,\"source\":\"labels\"}}");
        assertThat(PreflightWire.ANSWERS.readValue("{\"node\":\"a\",\"findings\":[],\"probes\":[]}", StateAnswer.class).placement()).isNull();
        assertThat(json(new ProbeAnswer(PreflightWire.VERSION, "a", List.of(PeerResult.failed("c:9530", null, "cannot resolve host c")))))
                .isEqualTo("{\"version\":1,\"node\":\"a\",\"results\":[{\"peer\":\"c:9530\",\"peer_host\":null,\"sent\":0,\"lost\":0,"
                        + "\"late\":0,\"p50_seconds\":null,\"p99_seconds\":null,\"hold_p50_seconds\":null,\"hold_p90_seconds\":null,"
                        + "\"error\":\"cannot resolve host c\"}]}");
        assertThat(json(new BandwidthAnswer(PreflightWire.VERSION, "a", "b:9530", 9e10, null, null, "no ceiling")))
                .isEqualTo("{\"version\":1,\"node\":\"a\",\"peer\":\"b:9530\",\"bits_per_second\":9.0E10,\"ceiling_bits_per_second\":null,"
                        + "\"ratio\":null,\"limit\":\"no ceiling\"}");
    }

    @Test
    void anAnswerOfTheBuildBeforeReadsAndCountsNoAgentMakesReadAsNone() throws Exception {
        // no version (the build before), counts out of range, fractional or not numbers, absent ones
        ProbeAnswer a = PreflightWire.ANSWERS.readValue(("{\"node\":\"a\",\"results\":[{\"peer\":\"b:1\",\"sent\":1000000001,\"lost\":0},"
                + "{\"peer\":\"c:1\",\"sent\":-1,\"lost\":0},{\"peer\":\"d:1\",\"sent\":2.5,\"lost\":\"x\"},{\"peer\":\"e:1\",\"sent\":1000000000,"
                + "\"lost\":null},{\"peer\":\"f:1\"}],\"more\":1}").getBytes(), ProbeAnswer.class);
        assertThat(a.version()).isNull();
        assertThat(a.results()).extracting(PeerResult::sent).containsExactly(-1L, -1L, -1L, 1_000_000_000L, 0L);
        assertThat(a.results()).extracting(PeerResult::lost).containsExactly(0L, 0L, -1L, 0L, 0L);
    }
}
