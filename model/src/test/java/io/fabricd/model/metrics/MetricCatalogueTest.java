package io.fabricd.model.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class MetricCatalogueTest {
    @Test
    void everyFamilyIsDeclaredOnceWithDistinctLabels() {
        assertThat(MetricCatalogue.ALL).extracting(MetricFamily::name).doesNotHaveDuplicates();
        assertThat(MetricCatalogue.ALL).extracting(MetricFamily::exposedName).doesNotHaveDuplicates();
        assertThat(MetricCatalogue.ALL).allSatisfy(f -> assertThat(f.labels()).doesNotHaveDuplicates());
        assertThat(MetricCatalogue.byExposedName("fabric_port_pma_total")).contains(PortMetrics.PMA);
        assertThat(MetricCatalogue.byExposedName("fabric_port_pma")).contains(PortMetrics.PMA);
        assertThat(MetricCatalogue.byExposedName("fabric_port_counter_total")).isEmpty();
    }

    @Test
    void theCatalogueHoldsEveryFamilyTheClassesDeclare() {
        assertThat(MetricCatalogue.ALL).contains(PortMetrics.DEVICE_INFO, PortMetrics.MAX_QP, NetdevMetrics.MTU, TopologyMetrics.HOST_INFO,
                TopologyMetrics.IOMMU_UNITS, FindingMetrics.FINDING, FindingMetrics.CONFIG_INFO, ProbingMetrics.RTT,
                ProbingMetrics.BANDWIDTH_LAST_TEST, AgentMetrics.COLLECTOR_SUCCESS, AgentMetrics.HTTP_SIGNED_REFUSED);
    }

    @Test
    void aNameNotOfFabricdOrNotEndingInItsUnitIsRefused() {
        assertThatThrownBy(() -> MetricFamily.gauge("node_x", null, "X.")).hasMessageContaining("not a fabricd family name");
        assertThatThrownBy(() -> MetricFamily.counter("fabric_x_total", null, "X.")).hasMessageContaining("not a fabricd family name");
        assertThatThrownBy(() -> MetricFamily.gauge("fabric_x_bytes", "seconds", "X.")).hasMessageContaining("end in its unit");
        assertThatThrownBy(() -> MetricFamily.gauge("fabric_x", null, " ")).hasMessageContaining("no help");
        assertThat(MetricFamily.counter("fabric_x_seconds", "seconds", "X.", "a").exposedName()).isEqualTo("fabric_x_seconds_total");
        assertThat(MetricFamily.gauge("fabric_x", null, "X.", "a").labels()).isEqualTo(List.of("a"));
    }
}
