package io.fabricd.collectors.kernel;

import io.fabricd.model.DcbState;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabricd.collectors.source.SnapshotHostSource;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The side-car forms tools/capture-host.sh writes: iproute2's DCB JSON, "no DCB support", ibv_devinfo text. */
class SideCarFormsTest {

    private static KernelQueries kernel(Path root, String rel, String content) throws Exception {
        Files.createDirectories(root.resolve(rel).getParent());
        Files.writeString(root.resolve(rel), content);
        return SnapshotHostSource.open(root).kernel();
    }

    @Test
    void iproute2DcbJson(@TempDir Path tmp) throws Exception {
        // dcb -j -s pfc show / dcb -j -N app show, side by side (iproute2 dcb/dcb_pfc.c, dcb_app.c)
        KernelQueries k = kernel(tmp, "fabricd/dcb/eth0.json", "{\"pfc\": {\"pfc_cap\":8,\"macsec_bypass\":false,\"delay\":4096,"
                + "\"prio_pfc\":[false,false,false,true,false,false,false,false],\"requests\":[0,0,0,7,0,0,0,0],"
                + "\"indications\":[0,0,0,9,0,0,0,0]}, \"app\": {\"dscp_prio\":[[26,3],[48,6]]}}\n");
        DcbState d = k.dcb("eth0");
        assertThat(d.supported()).isTrue();
        assertThat(d.pfcEnabled()).containsExactly(3);
        assertThat(d.pfcCap()).isEqualTo(8);
        assertThat(d.requests()).element(3).isEqualTo(7L);
        assertThat(d.hasDscpApp()).isTrue();
        assertThat(d.app()).contains(new DcbState.AppEntry("dscp", 26, 3));
    }

    @Test
    void noDcbSupportIsSaidAndAbsenceIsUnknown(@TempDir Path tmp) throws Exception {
        KernelQueries k = kernel(tmp, "fabricd/dcb/veth0.json", "{\"supported\": false}\n");
        assertThat(k.dcb("veth0").supported()).isFalse();
        assertThatThrownBy(() -> k.dcb("eth9")).isInstanceOfSatisfying(HostReadException.class,
                e -> assertThat(e.isMissing()).isTrue());
    }

    @Test
    void ibvDevinfoText(@TempDir Path tmp) throws Exception {
        String text = String.join("\n", "hca_id:\tmlx5_0", "\ttransport:\t\t\tInfiniBand (0)", "\tmax_qp:\t\t\t\t131072",
                "\tphys_port_cnt:\t\t\t1", "\t\tport:\t1", "\t\t\tstate:\t\t\tPORT_ACTIVE (4)", "\t\t\tmax_mtu:\t\t4096 (5)",
                "\t\t\tactive_mtu:\t\t1024 (3)", "\t\t\tlink_layer:\t\tEthernet", "\t\t\tgid_tbl_len:\t\t256",
                "\t\t\tactive_width:\t\t4X (2)", "\t\t\tactive_speed:\t\t25.0 Gbps (32)", "");
        VerbsDevice v = kernel(tmp, "fabricd/verbs/mlx5_0.ibv_devinfo.txt", text).verbs("mlx5_0").orElseThrow();
        assertThat(v.maxQp()).isEqualTo(131072L);
        assertThat(v.ports().get(1)).isEqualTo(new VerbsDevice.VerbsPort("ACTIVE", 4096, 1024, "Ethernet", 256, "4X", "25.0 Gbps (32)"));
        assertThat(VerbsDevice.parseIbvDevinfo("No IB devices found\n")).isNull();
    }
}
