package io.fabricd.model.metrics;

import static io.fabricd.model.metrics.MetricFamily.gauge;

/** The judgement's families: open findings, what could not be judged, the expected inventory, the fleet-wide configuration. */
public final class FindingMetrics {
    private FindingMetrics() {
    }

    /** What a finding's series carry beyond check and severity. */
    public static final String SUBJECT_LABELS = "one label per part of the finding's subject (Subject.PARTS: device, port, netdev, "
            + "priority, gpu, pci, peer, direction), each always present, empty where the subject has no such part";

    public static final MetricFamily FINDING = gauge("fabric_finding", null,
            "One per open finding of the latest collection (fabricd diagnose; docs/checks.md): value 1.", "check", "severity")
            .withMoreLabels(SUBJECT_LABELS);
    public static final MetricFamily FINDING_TEXT = gauge("fabric_finding_text", null,
            "The words of each open finding of fabric_finding, with the same labels and its summary and the first step of its "
                    + "remediation: what alert descriptions print (a separate series, so a summary that changes does not restart "
                    + "the alert).", "check", "severity", "summary", "remediation")
            .withMoreLabels(SUBJECT_LABELS);
    public static final MetricFamily NOT_JUDGED = gauge("fabric_check_not_judged", null,
            "One per subject a check of the latest collection could not judge (docs/checks.md, \"What fabricd could not judge\"), "
                    + "with why: reason gone (it reads all ones), blind (fabricd read less than the check needs) or malformed (what "
                    + "was read is broken); value 1.", "check", "reason")
            .withMoreLabels(SUBJECT_LABELS);
    public static final MetricFamily INVENTORY_PRESENT = gauge("fabric_inventory_present", null,
            "1 when an item of the host's expected inventory (item: rdma_device, rdma_port, pci_function; node_guid tells apart two "
                    + "devices of one name) is present, 0 when it is gone (docs/alerts.md).",
            "item", "device", "port", "pci", "kind", "node_guid");
    public static final MetricFamily INVENTORY_PORT_EXPECTED_UP = gauge("fabric_inventory_port_expected_up", null,
            "1 when the inventory saw the RDMA port up, so it must stay up; 0 for a port that was never up since the inventory was "
                    + "learned or accepted.", "device", "port");
    public static final MetricFamily INVENTORY_ACCEPTED = gauge("fabric_inventory_accepted_timestamp_seconds", "seconds",
            "When the host's inventory was learned first or last accepted.", "origin");
    public static final MetricFamily CONFIG_INFO = gauge("fabric_config_info", null,
            "The fleet-wide configuration of this host, one series per key and distinct value (firmware, driver, kernel, mtu, ib_mtu, "
                    + "pfc, trust, ecn, mrrs, acs, gpudirect), by the card model (hca_type) it belongs to; value 1.",
            "key", "value", "hca_type");
}
