package io.fabricd.diagnosis.checks;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.diagnosis.Hosts;
import io.fabricd.diagnosis.Plain;
import io.fabricd.diagnosis.inventory.Inventory;
import io.fabricd.diagnosis.run.Diagnosis;
import io.fabricd.model.HostModel;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Severity;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * link_down by what the port's states say about its cable: a port with a link partner that is not
 * ACTIVE is a fault whatever expects it; only a port without a partner can be an unused one. And the
 * same-type rule, card by card: the second function of a dual-port card answers only to the second
 * functions of other cards.
 */
class LinkDownTest {
    static final String IB_PORT = "sys/class/infiniband/mlx5_0/ports/1/";
    static final Instant LEARNED = Instant.parse("2026-11-01T00:00:00Z");

    static List<Finding> linkDown(HostModel m, Inventory inventory) {
        return Diagnosis.run(m, null, inventory, DiagnosisConfig.DEFAULT).findings().stream()
                .filter(f -> f.check().equals("link_down")).toList();
    }

    /** InfiniBand: state, physical state, severity when nothing expects the port up, and words the summary has. */
    static Stream<Arguments> infiniband() {
        return Stream.of(
                Arguments.of("2: INIT", "5: LinkUp", Severity.WARNING, "no subnet manager"),
                Arguments.of("3: ARMED", "5: LinkUp", Severity.WARNING, "passes no traffic"),
                Arguments.of("1: DOWN", "5: LinkUp", Severity.WARNING, "passes no traffic"),
                Arguments.of("1: DOWN", "4: PortConfigurationTraining", Severity.WARNING, "link partner answers"),
                Arguments.of("2: INIT", "4: PortConfigurationTraining", Severity.WARNING, "link partner answers"),
                Arguments.of("1: DOWN", "6: LinkErrorRecovery", Severity.WARNING, "link partner answers"),
                Arguments.of("1: DOWN", "2: Polling", Severity.INFO, "unused or uncabled"),
                Arguments.of("1: DOWN", "1: Sleep", Severity.INFO, "does not say whether it is cabled"),
                Arguments.of("1: DOWN", "7: Phy Test", Severity.INFO, "does not say whether it is cabled"),
                Arguments.of("1: DOWN", "9: <unknown>", Severity.INFO, "does not say whether it is cabled"),
                Arguments.of("1: DOWN", null, Severity.INFO, "does not say whether it is cabled"));
    }

    @ParameterizedTest(name = "{0} / {1}")
    @MethodSource("infiniband")
    void aCabledPortThatIsNotUpIsAFaultWhateverTheInventorySays(String state, String phys, Severity unexpected, String words,
            @TempDir Path tmp) {
        Path root = Hosts.copy("host-a-ib", tmp.resolve("h"));
        HostModel up = Hosts.model(root);
        Hosts.write(root, IB_PORT + "state", state + "\n");
        if (phys == null) {
            Hosts.delete(root, IB_PORT + "phys_state");
        } else {
            Hosts.write(root, IB_PORT + "phys_state", phys + "\n");
        }
        HostModel down = Hosts.model(root);
        boolean partner = unexpected == Severity.WARNING;
        // nothing expects it up (no inventory, no other card), and an inventory accepted with the port as it is now
        for (Inventory inv : new Inventory[] {null, Inventory.of(down, LEARNED, Inventory.ACCEPTED)}) {
            assertThat(linkDown(down, inv)).as("inventory %s", inv == null ? "none" : "accepted down").singleElement().satisfies(x -> {
                assertThat(x.severity()).isEqualTo(unexpected);
                assertThat(x.summary()).contains(words);
                assertThat(Plain.evidence(x)).containsEntry("expected_up", false);
                assertThat(Plain.evidence(x).get("link_partner").toString()).startsWith(partner ? "present" : phys != null
                        && phys.startsWith("2") ? "none" : "not known");
                if (partner || phys == null || !phys.startsWith("2")) {
                    assertThat(x.summary()).doesNotContain("unused").doesNotContain("uncabled");
                }
            });
        }
        // the inventory saw it up: it must be up
        assertThat(linkDown(down, Inventory.of(up, LEARNED, Inventory.LEARNED))).singleElement()
                .satisfies(x -> assertThat(x.severity()).isEqualTo(Severity.CRITICAL));
    }

    @Test
    void aLinkStuckTrainingSaysSo(@TempDir Path tmp) {
        Path root = Hosts.copy("host-a-ib", tmp.resolve("h"));
        Hosts.write(root, IB_PORT + "state", "1: DOWN\n");
        Hosts.write(root, IB_PORT + "phys_state", "4: PortConfigurationTraining\n");
        assertThat(linkDown(Hosts.model(root), null)).singleElement()
                .satisfies(x -> assertThat(x.remediation()).contains("does not finish training"));
    }

    /** RoCE: the netdev's carrier tells a cabled port from an empty one. */
    static Stream<Arguments> roce() {
        return Stream.of(
                Arguments.of("3: Disabled", "up", "1", Severity.WARNING, "link partner answers"),
                Arguments.of("5: LinkUp", "down", "0", Severity.WARNING, "link partner answers"),
                Arguments.of("3: Disabled", "down", "0", Severity.INFO, "unused or uncabled"),
                Arguments.of("2: Polling", "up", "0", Severity.INFO, "unused or uncabled"));
    }

    @ParameterizedTest(name = "{0}, operstate {1}, carrier {2}")
    @MethodSource("roce")
    void aRocePortWithCarrierThatIsNotUpIsAFault(String phys, String operstate, String carrier, Severity severity, String words,
            @TempDir Path tmp) {
        Path root = Hosts.copy("host-b-roce", tmp.resolve("h"));
        Hosts.write(root, "sys/class/infiniband/mlx5_0/ports/1/state", "1: DOWN\n");
        Hosts.write(root, "sys/class/infiniband/mlx5_0/ports/1/phys_state", phys + "\n");
        Hosts.write(root, "sys/class/net/ens1f0np0/operstate", operstate + "\n");
        Hosts.write(root, "sys/class/net/ens1f0np0/carrier", carrier + "\n");
        HostModel m = Hosts.model(root);
        assertThat(linkDown(m, Inventory.of(m, LEARNED, Inventory.LEARNED))).singleElement().satisfies(x -> {
            assertThat(x.severity()).isEqualTo(severity);
            assertThat(x.summary()).contains(words);
            assertThat(Plain.evidence(x)).containsKey("link_partner");
        });
    }

    @Test
    void whileTheHostBootsACabledPortIsInfoButNeverUnused(@TempDir Path tmp) {
        Path root = Hosts.copy("host-a-ib", tmp.resolve("h"));
        HostModel up = Hosts.model(root);
        Hosts.write(root, IB_PORT + "state", "2: INIT\n");
        Instant at = Instant.parse("2026-11-02T00:00:00Z");
        Hosts.write(root, "proc/stat", "btime " + (at.getEpochSecond() - 120) + "\n");
        HostModel booting = Hosts.model(root, at);
        assertThat(linkDown(booting, null)).singleElement().satisfies(x -> {
            assertThat(x.severity()).isEqualTo(Severity.INFO);
            assertThat(x.summary()).contains("no subnet manager").contains("a warning if it stays so").doesNotContain("unused");
        });
        // an expected port not up yet is info while the host boots, and still says what expects it
        assertThat(linkDown(booting, Inventory.of(up, LEARNED, Inventory.LEARNED))).singleElement().satisfies(x -> {
            assertThat(x.severity()).isEqualTo(Severity.INFO);
            assertThat(x.summary()).contains("critical if it stays down").doesNotContain("nothing expects it up").doesNotContain("unused");
        });
        Hosts.write(root, IB_PORT + "phys_state", "2: Polling\n");
        Hosts.write(root, IB_PORT + "state", "1: DOWN\n");
        assertThat(linkDown(Hosts.model(root, at), Inventory.of(up, LEARNED, Inventory.LEARNED))).singleElement()
                .satisfies(x -> assertThat(x.summary()).contains("no link partner").doesNotContain("nothing expects it up"));
    }

    // ---- the same-type rule, card by card

    @Test
    void theSecondFunctionOfADualPortCardIsNotExpectedFromAnotherCardsFirst(@TempDir Path tmp) {
        // host-e: mlx5_0 and mlx5_1 are functions .0 and .1 of one card (slot 0000:31:00), mlx5_2 a card of its own; one model
        Path root = Hosts.copy("host-e-roce-variants", tmp.resolve("h"));
        roceDown(root, "mlx5_1", "ens1f1np1");
        assertThat(linkDown(Hosts.model(root), null)).singleElement().satisfies(x -> {
            assertThat(Plain.subject(x)).containsEntry("device", "mlx5_1");
            assertThat(x.severity()).isEqualTo(Severity.INFO);
            assertThat(Plain.evidence(x)).containsEntry("expected_up", false);
        });
        // the first function of the card answers to the other card's first function
        Path other = Hosts.copy("host-e-roce-variants", tmp.resolve("o"));
        roceDown(other, "mlx5_0", "ens1f0np0");
        assertThat(linkDown(Hosts.model(other), null)).singleElement().satisfies(x -> {
            assertThat(x.severity()).isEqualTo(Severity.CRITICAL);
            assertThat(Plain.evidence(x).get("expected_because").toString()).contains("mlx5_2");
        });
    }

    @Test
    void secondFunctionsAnswerToSecondFunctions(@TempDir Path tmp) {
        // host-f's 16 cards made into 8 dual-port cards by their system image GUIDs: mlx5_1 the second function of mlx5_0's card, ...
        Path root = Hosts.copy("host-f-big", tmp.resolve("h"));
        for (int i = 0; i < 16; i += 2) {
            Hosts.write(root, "sys/class/infiniband/mlx5_" + (i + 1) + "/sys_image_guid",
                    Hosts.model(root).device("mlx5_" + i).orElseThrow().sysImageGuid() + "\n");
        }
        roceDown(root, "mlx5_3", "ens2f1np0");
        assertThat(linkDown(Hosts.model(root), null)).singleElement().satisfies(x -> {
            assertThat(Plain.subject(x)).containsEntry("device", "mlx5_3");
            assertThat(x.severity()).isEqualTo(Severity.CRITICAL);
            assertThat(Plain.evidence(x).get("expected_because").toString()).contains("function 2 of a card of the same type");
        });
        // one dual-port card among single-port ones: its second function answers to none of them
        Path mixed = Hosts.copy("host-f-big", tmp.resolve("m"));
        Hosts.write(mixed, "sys/class/infiniband/mlx5_1/sys_image_guid", Hosts.model(mixed).device("mlx5_0").orElseThrow().sysImageGuid() + "\n");
        roceDown(mixed, "mlx5_1", "ens1f1np0");
        assertThat(linkDown(Hosts.model(mixed), null)).singleElement()
                .satisfies(x -> assertThat(x.severity()).isEqualTo(Severity.INFO));
    }

    @Test
    void aRealH100NodesSecondFunctionsAreNotExpectedFromTheOtherCard() {
        // the capture's two ConnectX-6 Dx cards share a system image GUID per card: mlx5_1 (up) + mlx5_2, mlx5_7 + mlx5_8
        List<Finding> f = linkDown(Hosts.model("real/h100-some-down"), null);
        assertThat(f).extracting(x -> Plain.subject(x).get("device") + " " + x.severity())
                .containsExactlyInAnyOrder("mlx5_2 INFO", "mlx5_7 WARNING", "mlx5_8 INFO");
        assertThat(f).filteredOn(x -> Plain.subject(x).get("device").equals("mlx5_7")).singleElement()
                .satisfies(x -> assertThat(Plain.evidence(x).get("expected_because").toString()).contains("mlx5_1"));
    }

    @Test
    void withoutPciAddressOrSystemImageGuidTheCardIsNotKnown(@TempDir Path tmp) {
        Path root = Hosts.copy("real/h100-some-down", tmp.resolve("h"));
        for (String d : List.of("mlx5_1", "mlx5_2", "mlx5_7", "mlx5_8")) {
            Hosts.delete(root, "sys/class/infiniband/" + d + "/sys_image_guid");
        }
        assertThat(linkDown(Hosts.model(root), null)).hasSize(3).allSatisfy(x -> {
            assertThat(x.severity()).isEqualTo(Severity.INFO);
            assertThat(Plain.evidence(x).get("expected_because").toString()).contains("its card is not known");
        });
    }

    static void roceDown(Path root, String device, String netdev) {
        Hosts.write(root, "sys/class/infiniband/" + device + "/ports/1/state", "1: DOWN\n");
        Hosts.write(root, "sys/class/infiniband/" + device + "/ports/1/phys_state", "3: Disabled\n");
        Hosts.write(root, "sys/class/net/" + netdev + "/operstate", "down\n");
        Hosts.write(root, "sys/class/net/" + netdev + "/carrier", "0\n");
    }
}
