package io.fabricd.diagnosis;

import io.fabricd.diagnosis.run.Diagnosis;
import io.fabricd.diagnosis.run.Report;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.collectors.Fixtures;
import io.fabricd.collectors.pcie.PcieHosts;
import io.fabricd.model.finding.NotJudged;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a check could not judge, and why, in one place: a malformed config space, a function that
 * reads all ones and one read in part give no finding built on them, and the report's not-judged
 * list (JSON {@code not_judged}, the text's "Not judged") names the check, the subject and the
 * reason. On host-d-topology with the real config dumps of PcieHosts; each broken list is a real
 * dump with one pointer changed.
 */
class NotJudgedTest {
    static final String ENDPOINT = "pciutils-cap-pcie-2.lspci-xxxx.txt";
    static final String ROOT_PORT = "pciutils-cap-pcie-1.lspci-xxxx.txt";
    static final List<String> NIC_CHECKS = List.of("pcie_max_payload", "pcie_max_read_request", "pcie_relaxed_ordering");

    static Report diagnose(PcieHosts h) {
        return Diagnosis.run(Hosts.model(h.root()), null);
    }

    static List<String> entries(Report r) {
        return r.notJudged().stream().map(n -> n.check() + " " + n.subject().pci() + " " + n.reason().id()).toList();
    }

    /** The 82576's dump (Max Read Request 512: a finding when read) with its last capability, the PCI Express one, pointing back to the first. */
    static byte[] nicWithALoop() {
        byte[] b = Fixtures.lspciDump(ENDPOINT);
        b[0xa1] = 0x40;
        return b;
    }

    @Test
    void aMalformedCapabilityListGivesNoFindingAndSaysWhy(@TempDir Path tmp) {
        PcieHosts h = PcieHosts.topology(tmp.resolve("h"));
        assertThat(diagnose(h).findings()).anyMatch(f -> f.check().equals("pcie_max_read_request"));
        assertThat(diagnose(h).notJudged()).isEmpty();

        h.config(PcieHosts.NIC, nicWithALoop());
        Report r = diagnose(h);
        assertThat(r.findings()).noneMatch(f -> NIC_CHECKS.contains(f.check()));
        assertThat(entries(r)).containsExactly("pcie_max_payload 0000:19:00.0 malformed", "pcie_max_read_request 0000:19:00.0 malformed",
                "pcie_relaxed_ordering 0000:19:00.0 malformed");
        assertThat(r.notJudged()).allSatisfy(n -> assertThat(n.detail())
                .startsWith("nic 0000:19:00.0: the list loops: the capability at 0xa0 points back to 0x40: nothing is decoded from that list.")
                .contains("`lspci -xxxx -s 0000:19:00.0`").contains("update the firmware"));
    }

    /** The NIC's switch port: ACS redirect on, its extended list looping after ACS; its standard list whole, so Max Payload is judged. */
    @Test
    void aMalformedExtendedListWhileTheStandardOneIsFine(@TempDir Path tmp) {
        PcieHosts h = PcieHosts.topology(tmp.resolve("h")).acs(PcieHosts.NIC_PORT, 0x1d);
        assertThat(Hosts.of(Hosts.model(h.root()), "pcie_acs_redirect")).hasSize(1);
        byte[] port = Fixtures.lspciDump(ROOT_PORT);
        port[0x156] = 0x1d;
        port[0x152] = 0x01;
        port[0x153] = 0x15; // ACS's next: back to 0x150, itself
        h.config(PcieHosts.NIC_PORT, port);
        Report r = diagnose(h);
        assertThat(r.findings()).noneMatch(f -> f.check().equals("pcie_acs_redirect"));
        assertThat(entries(r)).containsExactly("pcie_acs_redirect 0000:17:01.0 malformed");
        assertThat(r.notJudged().get(0).detail()).startsWith("bridge 0000:17:01.0: the extended list loops: the extended capability at 0x150 "
                + "points back to 0x150");
        // the NIC below it is judged: the port's Max Payload Supported comes from its whole standard list
        assertThat(r.findings()).anyMatch(f -> f.check().equals("pcie_max_read_request"));
    }

    /** A bridge above the NIC with a broken standard list: what the NIC's path allows is unknown, ACS of that bridge still judged. */
    @Test
    void aMalformedStandardListWhileTheExtendedOneIsFine(@TempDir Path tmp) {
        PcieHosts h = PcieHosts.topology(tmp.resolve("h")).deviceControl(PcieHosts.NIC, 0x5800); // Max Payload 128: a finding when judged
        assertThat(Hosts.of(Hosts.model(h.root()), "pcie_max_payload")).hasSize(1);
        byte[] port = Fixtures.lspciDump(ROOT_PORT);
        port[0x34] = 0x20; // into the header
        port[0x156] = 0x1d;
        h.config(PcieHosts.NIC_PORT, port);
        Report r = diagnose(h);
        assertThat(r.findings()).noneMatch(f -> f.check().equals("pcie_max_payload"));
        assertThat(entries(r)).containsExactly("pcie_max_payload 0000:19:00.0 malformed");
        assertThat(r.notJudged().get(0).detail()).startsWith("bridge 0000:17:01.0: the capability pointer (0x34) points to 0x20, inside the header");
        assertThat(r.findings()).anyMatch(f -> f.check().equals("pcie_acs_redirect") && PcieHosts.NIC_PORT.equals(f.subject().pci()));
    }

    /**
     * A NIC whose link status reads all ones (width 63) while the agent still holds its config from
     * before (kept until the identity refresh): no finding on registers of a function that is gone.
     */
    @Test
    void aGoneFunctionsKeptRegistersAreNotJudged(@TempDir Path tmp) {
        PcieHosts h = PcieHosts.topology(tmp.resolve("h"));
        Hosts.write(h.root(), "sys/bus/pci/devices/" + PcieHosts.NIC + "/current_link_width", "63\n");
        Report r = diagnose(h);
        assertThat(r.findings()).noneMatch(f -> NIC_CHECKS.contains(f.check()) || f.check().equals("pcie_degraded"));
        assertThat(entries(r)).containsExactly("pcie_degraded 0000:19:00.0 gone", "pcie_max_payload 0000:19:00.0 gone",
                "pcie_max_read_request 0000:19:00.0 gone", "pcie_relaxed_ordering 0000:19:00.0 gone");
        assertThat(r.notJudged()).allSatisfy(n -> assertThat(n.detail()).isEqualTo("nic 0000:19:00.0 reads all ones (its link status: "
                + "width 63): it no longer answers, and nothing read from it is a value. hardware_missing says whether it was expected; "
                + "`lspci -s 0000:19:00.0` whether it is still on the bus."));
    }

    @Test
    void theJsonAndTheTextSayIt(@TempDir Path tmp) throws Exception {
        PcieHosts h = PcieHosts.topology(tmp.resolve("h"));
        h.config(PcieHosts.NIC, nicWithALoop());
        Report r = diagnose(h);
        JsonNode j = new ObjectMapper().readTree(r.toJson());
        assertThat(j.get("not_judged").size()).isEqualTo(3);
        JsonNode first = j.at("/not_judged/0");
        List<String> names = new ArrayList<>();
        first.fieldNames().forEachRemaining(names::add);
        assertThat(names).containsExactly("check", "subject", "reason", "detail");
        assertThat(first.get("check").asText()).isEqualTo("pcie_max_payload");
        assertThat(first.at("/subject/pci").asText()).isEqualTo(PcieHosts.NIC);
        assertThat(first.get("reason").asText()).isEqualTo("malformed");
        // a host with everything judged has an empty list
        assertThat(new ObjectMapper().readTree(Diagnosis.run(Hosts.model("host-a-ib"), null).toJson()).get("not_judged").isArray()).isTrue();
        assertThat(new ObjectMapper().readTree(Diagnosis.run(Hosts.model("host-a-ib"), null).toJson()).get("not_judged").size()).isZero();

        // counted unless verbose; verbose, the NIC's three checks stopped by one list are one line
        assertThat(r.toText(false, false)).contains("\nNot judged (3): malformed: 1 pcie_max_payload, 1 pcie_max_read_request, "
                + "1 pcie_relaxed_ordering; no finding is built on them, `fabricd diagnose --verbose` lists them and why\n")
                .doesNotContain("the list loops");
        String verbose = r.toText(false, true);
        assertThat(verbose).contains("\nNot judged (3): no finding is built on what could not be read\n"
                + "  [pcie_max_payload, pcie_max_read_request, pcie_relaxed_ordering] pci=0000:19:00.0: malformed: nic 0000:19:00.0: "
                + "the list loops: ");
        assertThat(verbose.split("the list loops", -1)).hasSize(2);
        assertThat(Diagnosis.run(Hosts.model("host-a-ib"), null).toText(false, false)).doesNotContain("Not judged");
        // nothing found in what was judged is not "no findings" when something could not be judged
        Report quiet = new Report(r.model(), List.of(), List.of(), r.notJudged());
        assertThat(quiet.toText(false, false)).contains("No findings in what could be judged (see \"Not judged\" below).")
                .doesNotContain("\nNo findings.\n");
    }

    /** A disabled check says nothing, neither a finding nor what it could not judge. */
    @Test
    void aDisabledCheckListsNothing(@TempDir Path tmp) {
        PcieHosts h = PcieHosts.topology(tmp.resolve("h"));
        h.config(PcieHosts.NIC, nicWithALoop());
        Report r = Diagnosis.run(Hosts.model(h.root()), null, Configs.disabled(List.of("pcie_max_payload")));
        assertThat(r.notJudged()).extracting(NotJudged::check).containsExactly("pcie_max_read_request", "pcie_relaxed_ordering");
    }
}
