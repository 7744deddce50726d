package io.fabricd.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.probes.bandwidth.BandwidthResult;
import org.junit.jupiter.api.Test;

/** `fabricd bw` and `fabricd probe` in JSON: each result's fields, names and order, and a peer that gave none. */
class BwJsonTest {
    @Test
    void aResultIsWrittenWithItsFieldsInTheDocumentedOrder() throws Exception {
        BandwidthResult r = new BandwidthResult("10.0.0.2:9464", "mlx5_0", "mlx5_1", "send", 65536, 4, 5_000_000_000L, 76_294, 2_000_000_000L,
                4e11, "link", 1_700_000_000_000L);
        BandwidthResult unknown = new BandwidthResult("p", "d", "e", "recv", 1, 1, 0, 0, 0, null, "unknown", 0);
        ObjectMapper json = new ObjectMapper();
        assertThat(json.writeValueAsString(BwCommand.Line.of(r))).isEqualTo("{\"peer\":\"10.0.0.2:9464\",\"device\":\"mlx5_0\","
                + "\"peer_device\":\"mlx5_1\",\"direction\":\"send\",\"size\":65536,\"qps\":4,\"bytes\":5000000000,\"messages\":76294,"
                + "\"seconds\":2.0,\"bits_per_second\":2.0E10,\"messages_per_second\":38147.0,\"ceiling_bits_per_second\":4.0E11,"
                + "\"ratio\":0.05,\"limit\":\"link\"}");
        assertThat(json.writeValueAsString(BwCommand.Line.of(unknown))).endsWith("\"ceiling_bits_per_second\":null,\"ratio\":null,\"limit\":\"unknown\"}");
        assertThat(json.writeValueAsString(new PeerError("p", "refused"))).isEqualTo("{\"peer\":\"p\",\"error\":\"refused\"}");
        assertThat(json.writeValueAsString(new PeerError("p", "verbs", 64, "lost"))).isEqualTo(
                "{\"peer\":\"p\",\"transport\":\"verbs\",\"size\":64,\"error\":\"lost\"}");
    }
}
