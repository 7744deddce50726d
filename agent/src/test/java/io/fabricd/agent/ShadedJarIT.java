package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Test;

/** The shaded agent jar (built in the package phase, before integration tests): one Jackson major. */
class ShadedJarIT {

    @Test
    void oneJacksonMajorVersion() throws Exception {
        Path jar = Requirements.repoRoot().resolve("agent/target/fabricd.jar");
        assertThat(jar).exists();
        try (JarFile j = new JarFile(jar.toFile())) {
            List<String> names = j.stream().map(ZipEntry::getName).toList();
            assertThat(names).as("Jackson 2").contains("com/fasterxml/jackson/databind/ObjectMapper.class");
            assertThat(names).as("Jackson 3 (tools.jackson) beside Jackson 2")
                    .noneMatch(n -> n.startsWith("tools/jackson/"));
            List<String> poms = names.stream()
                    .filter(n -> n.matches("META-INF/maven/com\\.fasterxml\\.jackson\\.core/[^/]+/pom\\.properties"))
                    .toList();
            assertThat(poms).isNotEmpty();
            for (String p : poms) {
                String props = new String(j.getInputStream(j.getEntry(p)).readAllBytes());
                assertThat(props).as(p).containsPattern("(?m)^version=2\\.");
            }
        }
    }
}
