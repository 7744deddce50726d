package io.fabricd.agent.cli;

import io.fabricd.model.metrics.AgentMetrics;
import io.fabricd.natives.VerbsShim;
import io.prometheus.metrics.core.metrics.Info;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine;

/**
 * fabricd's version and git revision, written into {@code io/fabricd/agent/build.properties} by the
 * build (the version is the root pom's, the one place it is set; the revision is {@code git describe
 * --always --dirty}, "unknown" when built outside a git checkout), and the Java runtime it runs on.
 */
public final class Version implements CommandLine.IVersionProvider {
    private static final Properties BUILD = load();

    @Override
    public String[] getVersion() {
        String verbs = VerbsShim.load().unavailable();
        return new String[] {text(), "revision " + revision() + ", Java " + javaVersion() + " (" + System.getProperty("java.vm.name", "?") + ")",
            verbs == null ? "verbs: the shim and libibverbs load" : "verbs: " + verbs};
    }

    /** "fabricd 0.x.y". */
    public static String text() {
        return "fabricd " + version();
    }

    /** The project version, e.g. "0.1.0"; "dev" when the build did not write it. */
    public static String version() {
        return value("version", "dev");
    }

    /** The git revision the build saw, e.g. "42f1eb2a1b2c" or "42f1eb2a1b2c-dirty"; "unknown" without one. */
    public static String revision() {
        return value("revision", "unknown");
    }

    /** {@code fabric_build_info{version,revision,java_version} 1}, like client_java's jvm_runtime_info. */
    public static void register(PrometheusRegistry registry) {
        Info.builder().name(AgentMetrics.BUILD_INFO.name()).help(AgentMetrics.BUILD_INFO.help())
                .labelNames(AgentMetrics.BUILD_INFO.labels().toArray(String[]::new)).register(registry)
                .addLabelValues(version(), revision(), javaVersion());
    }

    /** The running Java's version, e.g. "17.0.17+10-Debian-1deb12u1". */
    public static String javaVersion() {
        return System.getProperty("java.runtime.version", System.getProperty("java.version", "unknown"));
    }

    private static String value(String key, String otherwise) {
        String v = BUILD.getProperty(key);
        // an unfiltered placeholder (resources copied without the build's filtering) is no value
        return v == null || v.isBlank() || v.contains("${") ? otherwise : v.trim();
    }

    private static Properties load() {
        Properties p = new Properties();
        try (InputStream in = Version.class.getResourceAsStream("/io/fabricd/agent/build.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            // unreadable: version "dev", revision "unknown"
        }
        return p;
    }
}
