package io.fabricd.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** The generators of tools/ (alerts.py, dashboards.py), run as a maintainer runs them: python3, in a folder, with arguments. */
final class Generators {
    private Generators() {
    }

    record Run(int code, String output) {
    }

    /** {@code tool} (a path under the repository) with {@code args}, in {@code cwd}; stdout and stderr together. */
    static Run run(String tool, Path cwd, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("python3", Paths.repo().resolve(tool).toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).directory(cwd.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Run(p.waitFor(), out);
    }

    /**
     * {@code --help} prints the usage (exit 0); an argument starting with '-' is refused (exit 2),
     * never taken for the folder to write into: nothing is written in {@code cwd} either way.
     */
    static void refusesAnOptionForAFolder(String tool, Path cwd) throws Exception {
        Run help = run(tool, cwd, "--help");
        assertThat(help.code()).as(help.output()).isZero();
        assertThat(help.output()).startsWith("usage: " + tool + " [-h] [OUT_DIR]");
        for (String arg : List.of("-x", "--out", "-")) {
            Run r = run(tool, cwd, arg);
            assertThat(r.code()).as(r.output()).isEqualTo(2);
            assertThat(r.output()).contains("usage: " + tool, "error: ");
        }
        try (Stream<Path> written = Files.list(cwd)) {
            assertThat(written).as("nothing written").isEmpty();
        }
    }
}
