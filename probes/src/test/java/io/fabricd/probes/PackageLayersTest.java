package io.fabricd.probes;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The probes packages, one concern each, stay acyclic: the shared vocabulary here uses none of
 * them, and each uses only those before it in udp, peers, responder, verbs, bandwidth, mesh
 * (docs/architecture.md).
 */
class PackageLayersTest {
    static final JavaClasses PROBES = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.fabricd.probes");

    @Test
    void theSubpackagesAreFreeOfCycles() {
        slices().matching("io.fabricd.probes.(*)..").should().beFreeOfCycles().check(PROBES);
    }

    @Test
    void eachPackageUsesOnlyThoseBeforeIt() {
        layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("vocabulary").definedBy("io.fabricd.probes")
                .layer("udp").definedBy("io.fabricd.probes.udp..")
                .layer("peers").definedBy("io.fabricd.probes.peers..")
                .layer("responder").definedBy("io.fabricd.probes.responder..")
                .layer("verbs").definedBy("io.fabricd.probes.verbs..")
                .layer("bandwidth").definedBy("io.fabricd.probes.bandwidth..")
                .layer("mesh").definedBy("io.fabricd.probes.mesh..")
                .whereLayer("vocabulary").mayNotAccessAnyLayer()
                .whereLayer("udp").mayOnlyAccessLayers("vocabulary")
                .whereLayer("peers").mayOnlyAccessLayers("vocabulary")
                .whereLayer("responder").mayOnlyAccessLayers("vocabulary", "udp")
                .whereLayer("verbs").mayOnlyAccessLayers("vocabulary", "peers", "responder")
                .whereLayer("bandwidth").mayOnlyAccessLayers("vocabulary", "peers", "verbs")
                .whereLayer("mesh").mayNotBeAccessedByAnyLayer()
                .check(PROBES);
    }
}
