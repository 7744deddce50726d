package io.fabricd.agent.config;

import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads {@code --config FILE}. Every problem of the file - each unknown key, each value of the wrong
 * kind, each key given twice - is named with its line in one IllegalArgumentException (exit 2), in
 * words: never a Java class name. {@code /dev/null} and an empty file are the defaults.
 */
public final class ConfigLoader {
    private static final Pattern DURATION = Pattern.compile("^(\\d+(?:\\.\\d+)?)(us|µs|ms|s|m|h)$");
    /** The key a validation message starts with: "collection.interval must be ...", "http: ...". */
    private static final Pattern LEADING_KEY = Pattern.compile("^([a-z_]+(?:\\.[a-z_]+)*)");
    private static final Pattern DOTTED_KEY = Pattern.compile("\\b([a-z_]+(?:\\.[a-z_]+)+)\\b");
    private static final Path DEV_NULL = Path.of("/dev/null");

    private ConfigLoader() {
    }

    public static AgentConfig load(Path file) {
        if (file == null || isDevNull(file)) {
            return AgentConfig.defaults();
        }
        String text = ConfigText.read("config file", file);
        YAMLFactory yaml = new YAMLFactory();
        ObjectMapper m = YAMLMapper.builder(yaml).enable(MapperFeature.ACCEPT_CASE_INSENSITIVE_ENUMS).build()
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                // "collection: ~" or "listen:" with nothing after it: the default, as if the key were absent
                .setDefaultSetterInfo(JsonSetter.Value.forValueNulls(Nulls.SKIP))
                .registerModule(new SimpleModule().addDeserializer(Duration.class, new DurationDeserializer()));
        ConfigProblems problems = new ConfigProblems();
        YamlLines lines = YamlLines.scan(yaml, text, problems);
        if (lines == null) {
            throw problems.exception("config file", file);
        }
        JsonNode tree;
        try {
            tree = m.readTree(text);
        } catch (IOException e) {
            throw new IllegalArgumentException("config file " + file + ": not valid YAML: " + ConfigText.clamp(ConfigBinder.words(e.getMessage())));
        }
        AgentConfig c = ConfigBinder.bind(m, tree, lines, problems);
        if (c != null && problems.isEmpty()) {
            problems.check(c::validate, lines);
        }
        if (!problems.isEmpty()) {
            throw problems.exception("config file", file);
        }
        return c;
    }

    /**
     * The line of the key a validation message names: the key it starts with, else the first dotted
     * key in it ("unknown collector 'gpu' in collection.disabled_collectors"); 0 when it names none
     * of the file's keys.
     */
    static int lineOf(String message, YamlLines lines) {
        String m = message == null ? "" : message;
        Matcher k = LEADING_KEY.matcher(m);
        int line = k.find() ? lines.line("/" + k.group(1).replace('.', '/')) : 0;
        for (Matcher d = DOTTED_KEY.matcher(m); line == 0 && d.find(); ) {
            line = lines.line("/" + d.group(1).replace('.', '/'));
        }
        return line;
    }

    /** {@code --config /dev/null}: no configuration, as on the command lines of other tools. */
    private static boolean isDevNull(Path file) {
        try {
            return file.toRealPath().equals(DEV_NULL);
        } catch (IOException e) {
            return false;
        }
    }

    /** A file fabricd reads at start: a regular, readable file (a FIFO would hang the start, a folder is no file). */
    public static void checkReadableFile(String what, Path file) {
        if (Files.isDirectory(file)) {
            throw new IllegalArgumentException(what + " " + file + " is a folder, not a file");
        }
        if (!Files.exists(file)) {
            throw new IllegalArgumentException(what + " " + file + " does not exist");
        }
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException(what + " " + file + " is not a regular file (a pipe or device cannot be read at start)");
        }
        if (!Files.isReadable(file)) {
            throw new IllegalArgumentException(what + " " + file + " cannot be read: permission denied; run fabricd as root or make it "
                    + "readable by the user running fabricd");
        }
    }

    /** "200us" (or "µs"), "500ms", "10s", "1m", "1h", or a number of seconds; fractions allowed ("1.5ms"). */
    public static Duration parseDuration(String text) {
        String t = text.strip();
        if (t.matches("^\\d+(\\.\\d+)?$")) {
            return Duration.ofNanos(Math.round(Double.parseDouble(t) * 1e9));
        }
        Matcher mt = DURATION.matcher(t);
        if (!mt.matches()) {
            throw new IllegalArgumentException(ConfigText.quote(text) + " is not a duration (like 500ms, 10s, 1m)");
        }
        double v = Double.parseDouble(mt.group(1));
        double nanosPerUnit = switch (mt.group(2)) {
            case "us", "µs" -> 1e3;
            case "ms" -> 1e6;
            case "s" -> 1e9;
            case "m" -> 60e9;
            default -> 3600e9;
        };
        return Duration.ofNanos(Math.round(v * nanosPerUnit));
    }

    private static final class DurationDeserializer extends JsonDeserializer<Duration> {
        @Override
        public Duration deserialize(JsonParser p, DeserializationContext ctx) throws IOException {
            if (!p.currentToken().isScalarValue()) {
                return (Duration) ctx.handleUnexpectedToken(Duration.class, p); // a list or a section: "expected a duration"
            }
            try {
                return parseDuration(p.getValueAsString());
            } catch (IllegalArgumentException | NullPointerException e) {
                throw InvalidFormatException.from(p,
                        ConfigText.quote(p.getText()) + " is not a duration (like 500ms, 10s, 1m)", p.getText(), Duration.class);
            }
        }
    }
}
