package io.fabricd.diagnosis;

import java.util.List;
import java.util.Map;

/** Diagnosis configurations that differ from the default in one key, as a test needs them. */
public final class Configs {
    private Configs() {
    }

    public static DiagnosisConfig disabled(List<String> checks) {
        return new DiagnosisConfig(checks, null, null, null, null, null, null, null, null, null, null, null);
    }

    public static DiagnosisConfig roce(DiagnosisConfig.Roce roce) {
        return new DiagnosisConfig(null, roce, null, null, null, null, null, null, null, null, null, null);
    }

    public static DiagnosisConfig link(DiagnosisConfig.Link link) {
        return new DiagnosisConfig(null, null, null, null, link, null, null, null, null, null, null, null);
    }

    public static DiagnosisConfig portErrors(Map<String, Rate> rates) {
        return new DiagnosisConfig(null, null, null, null, null, rates, null, null, null, null, null, null);
    }

    public static DiagnosisConfig qp(DiagnosisConfig.Qp qp) {
        return new DiagnosisConfig(null, null, null, null, null, null, null, null, null, null, qp, null);
    }
}
