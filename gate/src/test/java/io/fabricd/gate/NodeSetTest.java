package io.fabricd.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** --nodes: hostlists, NAME=HOST:PORT entries, files, and what is refused in one line. */
class NodeSetTest {
    @Test
    void hostlistsAndAddressedEntries() throws IOException {
        assertThat(NodeSet.parse("gpu[001-003],b7", 9530)).containsExactly(new NodeSet.Node("gpu001", "gpu001:9530"),
                new NodeSet.Node("gpu002", "gpu002:9530"), new NodeSet.Node("gpu003", "gpu003:9530"), new NodeSet.Node("b7", "b7:9530"));
        assertThat(NodeSet.parse("a=127.0.0.1:9000,b=[::1]:9001,r[1-2]n[1-2]", 1)).extracting(NodeSet.Node::address)
                .containsExactly("127.0.0.1:9000", "[::1]:9001", "r1n1:1", "r1n2:1", "r2n1:1", "r2n2:1");
        // a name given twice counts once, in its first place
        assertThat(NodeSet.parse("a,b,a", 1)).extracting(NodeSet.Node::name).containsExactly("a", "b");
    }

    @Test
    void aFileOfEntriesWithComments(@TempDir Path tmp) throws IOException {
        Path f = Files.writeString(tmp.resolve("nodes.txt"), "# the job's nodes\ngpu[01-02]\n\n  gpu09=10.0.0.9:9530  # elsewhere\n");
        List<NodeSet.Node> viaAt = NodeSet.parse("@" + f, 9530);
        assertThat(viaAt).extracting(NodeSet.Node::name).containsExactly("gpu01", "gpu02", "gpu09");
        assertThat(viaAt.get(2).address()).isEqualTo("10.0.0.9:9530");
        assertThat(NodeSet.parse(f.toString(), 9530)).isEqualTo(viaAt);
    }

    @Test
    void onlyAtFileOrAValueWithASlashIsAFile(@TempDir Path tmp) throws IOException {
        // the module's folder, where the tests run, holds pom.xml: a bare name is still a node's
        assertThat(Files.isRegularFile(Path.of("pom.xml"))).as("the working folder has a pom.xml").isTrue();
        assertThat(NodeSet.parse("pom.xml", 9530)).containsExactly(new NodeSet.Node("pom.xml", "pom.xml:9530"));
        Path f = Files.writeString(tmp.resolve("nodes"), "n1\n");
        assertThat(NodeSet.parse(f.toString(), 9530)).extracting(NodeSet.Node::name).containsExactly("n1");
        assertThatThrownBy(() -> NodeSet.parse("./no-such-nodes-file", 9530)).isInstanceOf(IOException.class)
                .hasMessage("--nodes ./no-such-nodes-file: no such file");
    }

    @Test
    void badSetsAreOneLine(@TempDir Path tmp) throws IOException {
        for (String bad : new String[] {"", "  ", "gpu[1-", "gpu1]", "a,,b", "a=b", "a=host:99999", "a b", "x=1.2.3.4:5,x=1.2.3.4:6"}) {
            assertThatThrownBy(() -> NodeSet.parse(bad, 9530)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
        }
        assertThatThrownBy(() -> NodeSet.parse("@" + tmp.resolve("none"), 9530)).isInstanceOf(IOException.class)
                .hasMessage("--nodes " + tmp.resolve("none") + ": no such file");
        Path f = Files.writeString(tmp.resolve("f"), "ok1\nbad[\n");
        assertThatThrownBy(() -> NodeSet.parse("@" + f, 9530)).hasMessageStartingWith(f + " line 2: ");
    }
}
