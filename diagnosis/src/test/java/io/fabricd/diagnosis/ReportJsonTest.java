package io.fabricd.diagnosis;

import io.fabricd.diagnosis.run.Report;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.model.finding.Evidence;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Severity;
import io.fabricd.model.finding.Subject;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The findings JSON of interfaces.md: subject an object of its present parts, evidence in the check's order. */
class ReportJsonTest {

    @Test
    void subjectAndEvidenceKeepTheirShape() throws Exception {
        Evidence nested = Evidence.builder().put("counter", "symbol_error").put("increase", 12L).build();
        Evidence ev = Evidence.builder().put("zeta", 1).put("alpha", 0.5).put("on", true).put("unknown", (String) null)
                .numbers("pfc_enabled", List.of()).texts("gids", List.of("0 fe80::1 RoCE v2")).objects("rising", List.of(nested))
                .build();
        Finding f = new Finding("pfc_missing", Severity.CRITICAL, Subject.port("mlx5_2", 1).withNetdev("ens1f0np0").withPriority(3),
                "RoCE traffic class 3 has no PFC", ev, "Enable PFC.");
        Report r = new Report(Hosts.model("host-a-ib"), List.of(f), List.of(), List.of());
        JsonNode j = new ObjectMapper().readTree(r.toJson());
        JsonNode x = j.at("/findings/0");
        assertThat(names(x)).containsExactly("check", "severity", "subject", "summary", "evidence", "remediation");
        assertThat(x.get("severity").asText()).isEqualTo("critical");
        assertThat(names(x.get("subject"))).containsExactly("device", "netdev", "port", "priority");
        assertThat(x.at("/subject/port").isInt()).isTrue();
        assertThat(names(x.get("evidence"))).containsExactly("zeta", "alpha", "on", "unknown", "pfc_enabled", "gids", "rising");
        assertThat(x.at("/evidence/zeta").isInt()).isTrue();
        assertThat(x.at("/evidence/alpha").asDouble()).isEqualTo(0.5);
        assertThat(x.at("/evidence/on").asBoolean()).isTrue();
        assertThat(x.at("/evidence/unknown").isNull()).isTrue();
        assertThat(x.at("/evidence/pfc_enabled").isArray()).isTrue();
        assertThat(x.at("/evidence/rising/0/increase").asLong()).isEqualTo(12);
        // a finding of the whole host: an empty subject
        Report host = new Report(Hosts.model("host-a-ib"), List.of(new Finding("hardware_missing", Severity.CRITICAL, Subject.HOST, "s",
                Evidence.NONE, "r")), List.of(), List.of());
        assertThat(new ObjectMapper().readTree(host.toJson()).at("/findings/0/subject").size()).isZero();
        assertThat(host.toText(false, false)).contains("[hardware_missing] host: s");
        assertThat(r.toText(false, false)).contains("[pfc_missing] device=mlx5_2 netdev=ens1f0np0 port=1 priority=3: ",
                "      rising: [{counter=symbol_error, increase=12}]");
    }

    private static List<String> names(JsonNode n) {
        List<String> out = new ArrayList<>();
        n.fieldNames().forEachRemaining(out::add);
        return out;
    }
}
