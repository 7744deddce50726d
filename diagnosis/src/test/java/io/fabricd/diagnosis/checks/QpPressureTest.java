package io.fabricd.diagnosis.checks;

import io.fabricd.diagnosis.Plain;
import static io.fabricd.diagnosis.Hosts.T0;
import static io.fabricd.diagnosis.Hosts.model;
import static io.fabricd.diagnosis.Hosts.of;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.model.HostModel;
import io.fabricd.diagnosis.Configs;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.diagnosis.Hosts;
import io.fabricd.model.finding.Severity;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QpPressureTest {
    static final String CHECK = "qp_pressure";
    static final String QPS = "[{\"ifname\":\"mlx5_0\",\"port\":1,\"lqpn\":1345,\"type\":\"RC\",\"state\":\"RTS\"},"
            + "{\"ifname\":\"mlx5_0\",\"port\":1,\"lqpn\":1346,\"type\":\"RC\",\"state\":\"%s\"},"
            + "{\"ifname\":\"mlx5_0\",\"port\":1,\"lqpn\":1,\"type\":\"GSI\",\"state\":\"RTS\"}]";

    @Test
    void fewQpsOfAManyQpDeviceAreFine() {
        // host B: 3 QPs of max_qp 262144, one of them in ERR: one collection cannot tell accumulation
        assertThat(of(model("host-b-roce"), CHECK)).isEmpty();
        assertThat(of(model("host-a-ib"), CHECK)).isEmpty();
    }

    @Test
    void qpsNearTheDeviceLimit() {
        DiagnosisConfig c = Configs.qp(new DiagnosisConfig.Qp(0.00001, null, null)); // 2.6 QPs of 262144
        assertThat(of(model("host-b-roce"), null, c, CHECK)).singleElement().satisfies(x -> {
            assertThat(x.severity()).isEqualTo(Severity.WARNING);
            assertThat(Plain.subject(x)).containsEntry("device", "mlx5_0");
            assertThat(Plain.evidence(x)).containsEntry("qps", 3).containsEntry("max_qp", 262144L);
        });
    }

    @Test
    void qpsPilingUpInErr(@TempDir Path tmp) {
        Path b = Hosts.copy("host-b-roce", tmp.resolve("b"));
        Hosts.write(b, "fabricd/rdma/qp.json", String.format(QPS, "RTS"));
        HostModel before = Hosts.model(b, T0);
        Hosts.write(b, "fabricd/rdma/qp.json", String.format(QPS, "ERR"));
        HostModel after = Hosts.model(b, T0.plusSeconds(10));
        assertThat(of(after, before, DiagnosisConfig.DEFAULT, CHECK)).singleElement()
                .satisfies(x -> assertThat(x.summary()).contains("QPs in ERR grew from 0 to 1"));
        // the same ERR QP one collection later is not growth
        HostModel later = Hosts.model(b, T0.plusSeconds(20));
        assertThat(of(later, after, DiagnosisConfig.DEFAULT, CHECK)).isEmpty();
    }

    @Test
    void manyQpsInErrShowInOneCollection(@TempDir Path tmp) {
        Path b = Hosts.copy("host-b-roce", tmp.resolve("b"));
        StringBuilder qps = new StringBuilder("[");
        for (int i = 0; i < 40; i++) {
            qps.append(i == 0 ? "" : ",").append("{\"ifname\":\"mlx5_0\",\"port\":1,\"lqpn\":").append(2000 + i)
                    .append(",\"type\":\"RC\",\"state\":\"ERR\"}");
        }
        Hosts.write(b, "fabricd/rdma/qp.json", qps.append(']').toString());
        assertThat(of(Hosts.model(b), CHECK)).singleElement()
                .satisfies(x -> assertThat(x.summary()).contains("40 QPs sit in the ERR state"));
    }
}
