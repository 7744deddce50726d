package io.fabricd.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What a newcomer copies from the README and the install guides: the demo and the test suite as two
 * blocks one cannot paste together (Ctrl-C on the demo must not start a 30-minute suite), CI running
 * exactly the README's test command, and guides that say where each artifact comes from (bin/dist)
 * under the names bin/dist gives them, and how to render the chart.
 */
class GuidesTest {
    static final Path REPO = Paths.repo();

    /** The fenced shell blocks of a Markdown file, in order. */
    static List<String> blocks(Path md) throws IOException {
        List<String> out = new ArrayList<>();
        Matcher m = Pattern.compile("(?ms)^```sh\\n(.*?)^```").matcher(Files.readString(md));
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    @Test
    void theReadmesDemoAndTestSuiteAreTwoBlocksOfOneCommandEach() throws IOException {
        List<String> b = blocks(REPO.resolve("README.md"));
        assertThat(b.get(0).lines().toList()).singleElement().asString().endsWith("bin/fabricd run --demo");
        assertThat(b.get(1).lines().toList()).containsExactly("bin/test");
        assertThat(Files.readString(REPO.resolve(".ci/run"))).containsPattern("(?m)^exec bin/test$");
    }

    @Test
    void theGuidesSayWhereTheArtifactsComeFromAndUseTheirNames() throws IOException {
        String version = Files.readString(HelmChartTest.CHART.resolve("Chart.yaml")).replaceFirst("(?s).*\nappVersion: \"([^\"]+)\".*", "$1");
        String dist = Files.readString(REPO.resolve("bin/dist"));
        assertThat(dist).contains("fabricd_${deb_version}_amd64.deb", "fabricd-image-$version.oci.tar", "fabricd-$version.tgz");
        String bare = String.join("\n", blocks(REPO.resolve("docs/install-bare-metal.md")));
        assertThat(bare).containsPattern("(?m)^bin/dist\\b").contains("apt install ./fabricd_" + version + "_amd64.deb");
        assertThat(Files.readString(REPO.resolve("docs/install-bare-metal.md"))).contains("dist/fabricd_" + version + "_amd64.deb");
        String kube = String.join("\n", blocks(REPO.resolve("docs/install-kubernetes.md")));
        assertThat(kube).containsPattern("(?m)^bin/dist\\b").contains("oci-archive:dist/fabricd-image-" + version + ".oci.tar")
                .contains("helm template fabricd dist/fabricd-" + version + ".tgz").contains("helm install fabricd dist/fabricd-" + version + ".tgz");
    }

    @Test
    void theSlurmGuideInstallsThePrologThePackageShips() throws IOException {
        String dist = Files.readString(REPO.resolve("bin/dist"));
        Matcher installed = Pattern.compile("install -m 0755 deploy/slurm/fabricd-prolog.sh \"\\$root(/\\S+)\"").matcher(dist);
        assertThat(installed.find()).as("bin/dist puts the prolog into the .deb").isTrue();
        String guide = Files.readString(REPO.resolve("docs/preflight.md"));
        assertThat(guide).contains("PrologSlurmctld=" + installed.group(1)).contains("sudo -u slurm " + installed.group(1) + " --check");
    }
}
