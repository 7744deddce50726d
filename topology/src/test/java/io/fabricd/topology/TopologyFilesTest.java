package io.fabricd.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.fabricd.model.topology.Placement;
import io.fabricd.model.topology.Topology;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The topology files of docs/topology.md: realistic files read whole, and every kind of bad input named with its file and line. */
class TopologyFilesTest {
    @TempDir
    Path tmp;

    static Path resource(String name) throws URISyntaxException {
        return Path.of(TopologyFilesTest.class.getResource("/topology/" + name).toURI());
    }

    @Test
    void slurmTreeGivesEachNodeItsSwitchesFromTheLeafUp() throws Exception {
        Topology t = TopologyFiles.read(resource("slurm-tree.conf"));
        assertThat(t.placements()).hasSize(63); // gpu041 is out
        assertThat(t.placement("gpu001")).contains(new Placement("gpu001", List.of("ib-leaf-01", "ib-spine-1", "ib-core"), null,
                Placement.Source.SLURM));
        // lower-case keys, a trailing comment, and a line continued twice
        assertThat(t.placement("gpu048").orElseThrow().switches()).containsExactly("ib-leaf-03", "ib-spine-2", "ib-core");
        assertThat(t.placement("gpu041")).isEmpty();
        assertThat(t.placement("gpu064").orElseThrow().switches()).containsExactly("ib-leaf-04", "ib-spine-2", "ib-core");
        assertThat(t.tier("ib-core")).isEqualTo(2);
        assertThat(t.parent("ib-leaf-02")).isEqualTo("ib-spine-1");
        assertThat(TopologyFiles.format(Files.readString(resource("slurm-tree.conf")))).isEqualTo(TopologyFiles.Format.SLURM);
    }

    @Test
    void slurmBlocksAreAcceleratorDomains() throws Exception {
        Topology t = TopologyFiles.read(resource("slurm-block.conf"));
        assertThat(t.placements()).hasSize(72);
        assertThat(t.placement("gb200-r03-n07")).contains(new Placement("gb200-r03-n07", List.of(), "nvl72-r03",
                Placement.Source.SLURM));
        assertThat(t.switches()).isEmpty();
    }

    @Test
    void treeAndBlocksInOneFileGiveSwitchesAndDomain() throws Exception {
        Topology t = TopologyFiles.read(resource("slurm-mixed.conf"));
        assertThat(t.placement("node03")).contains(new Placement("node03", List.of("leaf-a1", "spine-a"), "nvl-2", Placement.Source.SLURM));
        assertThat(t.placement("node06")).contains(new Placement("node06", List.of("leaf-a2", "spine-a"), null, Placement.Source.SLURM));
        assertThat(t.placement("node13")).contains(new Placement("node13", List.of(), "nvl-3", Placement.Source.SLURM));
        assertThat(t.path("node01", "node09")).isEmpty(); // two trees: no switch in common
        assertThat(t.path("node01", "node05").orElseThrow()).hasSize(9);
    }

    @Test
    void plainFilePlacesHostlistsAndSingleNodes() throws Exception {
        Topology t = TopologyFiles.read(resource("plain.topology"));
        assertThat(t.placements()).hasSize(50);
        assertThat(t.placement("gpu020")).contains(new Placement("gpu020", List.of("leaf-02", "spine-1", "core-a"), "nvl-02",
                Placement.Source.FILE));
        assertThat(t.placement("login02")).contains(new Placement("login02", List.of("leaf-09"), null, Placement.Source.FILE));
        assertThat(TopologyFiles.format(Files.readString(resource("plain.topology")))).isEqualTo(TopologyFiles.Format.PLAIN);
    }

    @Test
    void slurmCommentsEscapesAndContinuationsAsSlurmReadsThem() {
        Topology t = TopologyFiles.parse("topology.conf", """
                # comment
                SwitchName=s1 \\
                  Nodes=a[1-2],b1      # a comment after a continued line
                   \t
                SwitchName=s2 Nodes=c1
                """);
        assertThat(t.placement("b1").orElseThrow().leaf()).isEqualTo("s1");
        assertThat(t.placement("c1").orElseThrow().leaf()).isEqualTo("s2");
        assertThatThrownBy(() -> TopologyFiles.parse("topology.conf", "SwitchName=s1 Nodes=a1 \\#LinkSpeed=4\n"))
                .hasMessageStartingWith("topology.conf:1: ").hasMessageContaining("unknown key \"#LinkSpeed\"");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            node listed twice                | SwitchName=s1 Nodes=n[1-4]\\nSwitchName=s2 Nodes=n[4-8]\\nSwitchName=top Switches=s[1-2] | 2 | node n4 is under switch s1 (line 1) and under switch s2 (line 2)
            node in two blocks               | BlockName=b1 Nodes=n[1-4]\\nBlockName=b2 Nodes=n3 | 2 | node n3 is in block b1 (line 1) and in block b2 (line 2)
            switch under two switches        | SwitchName=s1 Nodes=n1\\nSwitchName=p1 Switches=s1\\nSwitchName=p2 Switches=s1 | 3 | switch s1 is under switch p1 (line 2) and under switch p2 (line 3)
            cycle of switches                | SwitchName=l1 Nodes=n1\\nSwitchName=a Switches=l1,c\\nSwitchName=b Switches=a\\nSwitchName=c Switches=b | 2 | the switches form a cycle: a < b < c < a (lines 3, 4, 2)
            cycle with no leaf               | SwitchName=a Switches=b\\nSwitchName=b Switches=a | 2 | the switches form a cycle: b < a < b
            unknown key                      | SwitchName=s1 Nodes=n1 Speed=100 | 1 | unknown key "Speed" on a SwitchName line
            malformed line                   | SwitchName=s1 Nodes n1 | 1 | "Nodes" is not Key=Value
            line of no known kind            | # top\\nNodeName=n1 Switch=s1 | 2 | a line starts with SwitchName=, BlockName= or BlockSizes=, not "NodeName"
            switch defined twice             | SwitchName=s1 Nodes=n1\\n\\nSwitchName=s1 Nodes=n2 | 3 | switch s1 is defined twice, on lines 1 and 3
            child switch never defined       | SwitchName=s1 Nodes=n1\\nSwitchName=top Switches=s[1-2] | 2 | switch s2 in Switches= of top is never defined
            bad hostlist                     | SwitchName=s1 Nodes=n[4-1] | 1 | range 4-1 is reversed
            unbalanced tree                  | SwitchName=l1 Nodes=n1\\nSwitchName=l2 Nodes=n2\\nSwitchName=mid Switches=l2\\nSwitchName=top Switches=l1,mid | 2 | switch top is at tier 1 above leaf l1 (line 1) but at tier 2 above leaf l2 (line 2)
            ring plugin                      | RingName=r0 Nodes=n[1-8] | 1 | topology/ring is not a tree or blocks
            bad block size                   | BlockName=b1 Nodes=n[1-4]\\nBlockSizes=4,x | 2 | "x" is not a positive whole number
            key twice on a line              | SwitchName=s1 Nodes=n1 nodes=n2 | 1 | nodes is given twice on the line
            node named like a switch         | SwitchName=s1 Nodes=n1,s2\\nSwitchName=s2 Nodes=n3 | 1 | s2 is a node here and a switch elsewhere
            switch with nodes and switches   | SwitchName=s1 Nodes=n1 Switches=s2 | 1 | has both Nodes= and Switches=
            """)
    void badSlurmFilesAreNamedWithTheirLine(String what, String text, int line, String message) {
        assertThatThrownBy(() -> TopologyFiles.parse("/etc/slurm/topology.conf", text.replace("\\n", "\n")))
                .as(what).isInstanceOf(TopologyFileException.class)
                .hasMessageStartingWith("/etc/slurm/topology.conf:" + line + ": ").hasMessageContaining(message)
                .satisfies(e -> assertThat(((TopologyFileException) e).line()).isEqualTo(line));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            node listed twice       | n[1-4] leaf=l1\\n# second rack\\nn[4-6] leaf=l2 | 3 | node n4 is on line 1 and on line 3
            unknown key             | n1 leaf=l1 rack=r1 | 1 | unknown key "rack": the keys are leaf, spine, core, accelerator
            malformed word          | n1 leaf=l1 spine | 1 | "spine" is not key=value
            no place                | n1 | 1 | without a place
            line starts with a key  | leaf=l1 n1 | 1 | a plain topology file's lines start with their nodes
            later line without node | n1 leaf=l1\\nleaf=l2 n2 | 2 | the line starts with "leaf=l2", not the node
            spine without leaf      | n1 spine=s1 | 1 | spine= without leaf=
            value not a name        | n1 leaf=l1 accelerator=nvl\"1 | 1 | accelerator="nvl\\x221" is not a name
            switch under two spines | n1 leaf=l1 spine=s1\\nn2 leaf=l1 spine=s2 | 2 | switch l1 is under s2 here but under s1 on line 1
            switch at two tiers     | n1 leaf=l1 spine=s1\\nn2 leaf=s1 | 2 | switch s1 is leaf here but spine on line 1
            bad hostlist            | n[1-2 leaf=l1 | 1 | is never closed
            """)
    void badPlainFilesAreNamedWithTheirLine(String what, String text, int line, String message) {
        assertThatThrownBy(() -> TopologyFiles.parse("site.topology", text.replace("\\n", "\n")))
                .as(what).isInstanceOf(TopologyFileException.class)
                .hasMessageStartingWith("site.topology:" + line + ": ").hasMessageContaining(message);
    }

    @Test
    void aFileThatCannotBeReadIsNamed() throws IOException {
        assertThatThrownBy(() -> TopologyFiles.read(tmp.resolve("absent.conf"))).isInstanceOf(TopologyFileException.class)
                .hasMessage(tmp.resolve("absent.conf") + ": does not exist: check topology.file in the configuration");
        assertThatThrownBy(() -> TopologyFiles.read(tmp)).hasMessageContaining("is a folder");
        Path binary = Files.write(tmp.resolve("bin"), new byte[] {(byte) 0xff, (byte) 0xfe, 0, 1});
        assertThatThrownBy(() -> TopologyFiles.read(binary)).hasMessageContaining("is not text");
    }

    @Test
    void aPipeIsRefusedWithoutBeingOpenedAndASymlinkToAFileIsRead() throws Exception {
        Path fifo = tmp.resolve("topology.conf");
        assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();
        // opening a FIFO no one writes blocks forever: the agent's start, diagnose and preflight with it
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertThatThrownBy(() -> TopologyFiles.read(fifo))
                .isInstanceOf(TopologyFileException.class)
                .hasMessage(fifo + ": is not a regular file (a pipe, socket or device): name the topology file itself"));
        Path real = Files.writeString(tmp.resolve("real.conf"), "SwitchName=l1 Nodes=n1\n");
        Path link = Files.createSymbolicLink(tmp.resolve("link.conf"), real);
        assertThat(TopologyFiles.read(link).placements()).hasSize(1);
    }

    @Test
    void aFileNamesAtMost65536NodesAndSaysWhy() throws IOException {
        String why = "names more than 65536 nodes: fabricd reads at most that many from one file";
        assertThatThrownBy(() -> TopologyFiles.parse("site.topology", "a[1-40000] leaf=l1\nb[1-40000] leaf=l2\n"))
                .hasMessageStartingWith("site.topology:2: " + why);
        assertThatThrownBy(() -> TopologyFiles.parse("topology.conf", "SwitchName=l1 Nodes=a[1-40000]\nSwitchName=l2 Nodes=b[1-40000]\n"))
                .hasMessageStartingWith("topology.conf:2: " + why);
        assertThatThrownBy(() -> TopologyFiles.parse("topology.conf", "BlockName=b1 Nodes=a[1-65537]\n"))
                .hasMessageStartingWith("topology.conf:1: " + why);
        assertThat(TopologyFiles.parse("site.topology", "a[1-65536] leaf=l1\n").placements()).hasSize(TopologyFiles.MAX_NODES);
        // a hostlist too large for any file says so for a topology file, not with the advice for a job's --nodes
        assertThatThrownBy(() -> TopologyFiles.parse("site.topology", "n[0-99999999] leaf=l1\n"))
                .hasMessageStartingWith("site.topology:1: ").hasMessageContaining("a topology file names at most 65536 nodes")
                .hasMessageNotContaining("job");
        Path big = Files.write(tmp.resolve("big.topology"), new byte[TopologyFiles.MAX_BYTES + 1]);
        assertThatThrownBy(() -> TopologyFiles.read(big)).hasMessageStartingWith(big + ": is larger than 8 MiB: not a topology file (one of 65536 nodes");
    }

    @Test
    void aFileThatNamesNoNodeIsRefused() {
        for (String text : new String[] {"", "# nothing yet\n", "BlockSizes=4\n", "SwitchName=s1\n"}) {
            assertThatThrownBy(() -> TopologyFiles.parse("site.topology", text)).as(text).isInstanceOf(TopologyFileException.class)
                    .hasMessageStartingWith("site.topology: names no node: ");
        }
    }

    @Test
    void aChainOfSwitchesIsCheckedInLinearTimeAndMoreThanEightTiersRefused() {
        StringBuilder chain = new StringBuilder("SwitchName=s0 Nodes=n0\n");
        for (int i = 1; i < 20_000; i++) {
            chain.append("SwitchName=s").append(i).append(" Switches=s").append(i - 1).append('\n');
        }
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> assertThatThrownBy(() -> TopologyFiles.parse("topology.conf",
                chain.toString())).hasMessageStartingWith("topology.conf:9: switch s8 is tier 8 (counting the leaf as 0) above leaf s0: "
                        + "fabricd reads at most 8 tiers"));
        // a ring of as many switches above a leaf: a cycle, found as fast
        String ring = chain + "SwitchName=top Switches=s19999\n";
        String closed = ring.replace("SwitchName=s0 Nodes=n0\n", "SwitchName=leaf Nodes=n0\nSwitchName=s0 Switches=top\n");
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> assertThatThrownBy(() -> TopologyFiles.parse("topology.conf", closed))
                .hasMessageStartingWith("topology.conf:20002: the switches form a cycle: top < s0 < s1 < s2 < s3 < s4 < s5 < s6 < ... (20001 switches, lines 2, 3,")
                .hasMessageEndingWith(", ...): a tree has a top; take one of them out of the Switches= of the switch above it"));
        StringBuilder eight = new StringBuilder("SwitchName=s0 Nodes=n0\n");
        for (int i = 1; i < 8; i++) {
            eight.append("SwitchName=s").append(i).append(" Switches=s").append(i - 1).append('\n');
        }
        assertThat(TopologyFiles.parse("topology.conf", eight.toString()).placement("n0").orElseThrow().switches()).hasSize(8);
    }
}
