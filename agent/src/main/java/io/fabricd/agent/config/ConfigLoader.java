package io.fabricd.agent.config;

import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads {@code --config FILE}; every problem becomes one IllegalArgumentException with a clear message. */
public final class ConfigLoader {
    private static final Pattern DURATION = Pattern.compile("^(\\d+(?:\\.\\d+)?)(us|µs|ms|s|m|h)$");

    private ConfigLoader() {
    }

    public static AgentConfig load(Path file) {
        if (file == null) {
            return new AgentConfig();
        }
        checkReadableFile("config file", file);
        ObjectMapper m = new ObjectMapper(new YAMLFactory())
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                // "collection: ~" or "listen:" with nothing after it: the default, as if the key were absent
                .setDefaultSetterInfo(JsonSetter.Value.forValueNulls(Nulls.SKIP))
                .registerModule(new SimpleModule().addDeserializer(Duration.class, new DurationDeserializer()));
        try {
            AgentConfig c = Files.size(file) == 0 ? new AgentConfig() : m.readValue(file.toFile(), AgentConfig.class);
            if (c == null) {
                c = new AgentConfig();
            }
            c.validate();
            return c;
        } catch (UnrecognizedPropertyException e) {
            String key = key(e);
            String section = key.contains(".") ? " in " + key.substring(0, key.lastIndexOf('.')) : "";
            throw new IllegalArgumentException("config file " + file + ": unknown key '" + e.getPropertyName() + "'" + section
                    + keyLine(file, e) + "; known keys" + (section.isEmpty() ? "" : " there") + ": " + e.getKnownPropertyIds());
        } catch (MismatchedInputException e) {
            throw new IllegalArgumentException("config file " + file + ": " + key(e) + ": " + mismatch(e) + where(e));
        } catch (JacksonException e) {
            throw new IllegalArgumentException("config file " + file + ": " + e.getOriginalMessage() + where(e));
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read config file " + file + ": " + e.getMessage());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("config file " + file + ": " + e.getMessage());
        }
    }

    private static String where(JacksonException e) {
        return e.getLocation() == null ? "" : " (line " + e.getLocation().getLineNr() + ")";
    }

    /**
     * The line of an unknown key: the parser stands on the token after it (the next line for a key
     * whose value is a block), so the key is looked for from the parser's line upwards.
     */
    private static String keyLine(Path file, UnrecognizedPropertyException e) {
        if (e.getLocation() == null) {
            return "";
        }
        int line = e.getLocation().getLineNr();
        try {
            List<String> lines = Files.readAllLines(file);
            Pattern k = Pattern.compile("^\\s*(- +)?[\"']?" + Pattern.quote(String.valueOf(e.getPropertyName())) + "[\"']?\\s*:");
            for (int i = Math.min(line, lines.size()); i >= 1; i--) {
                if (k.matcher(lines.get(i - 1)).find()) {
                    return " (line " + i + ")";
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // the parser's line then
        }
        return " (line " + line + ")";
    }

    /** The dotted key of a Jackson error: "http.max_header_bytes", "rdma.include_devices[0]". */
    private static String key(JsonMappingException e) {
        StringBuilder sb = new StringBuilder();
        for (JsonMappingException.Reference r : e.getPath()) {
            if (r.getFieldName() != null) {
                sb.append(sb.length() == 0 ? "" : ".").append(r.getFieldName());
            } else if (r.getIndex() >= 0) {
                sb.append('[').append(r.getIndex()).append(']');
            }
        }
        return sb.length() == 0 ? "(top level)" : sb.toString();
    }

    /** A type error in words: what was given and what the key takes. */
    private static String mismatch(MismatchedInputException e) {
        Class<?> t = e.getTargetType();
        String want = t == null ? "another kind of value"
                : t == int.class || t == Integer.class || t == long.class || t == Long.class ? "a whole number"
                : t == double.class || t == Double.class ? "a number"
                : t == boolean.class || t == Boolean.class ? "true or false"
                : t == String.class ? "a text"
                : t == Duration.class ? "a duration (like 500ms, 10s, 1m)"
                : Collection.class.isAssignableFrom(t) || t.isArray() ? "a list"
                : Map.class.isAssignableFrom(t) ? "a mapping (key: value)"
                : t.getName().startsWith("io.fabricd.") ? "a section (key: value lines)" : "a " + t.getSimpleName();
        if (e instanceof InvalidFormatException f && f.getValue() != null) {
            return "'" + f.getValue() + "' is not " + want;
        }
        return "expected " + want;
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
            throw new IllegalArgumentException(what + " " + file + " cannot be read: permission denied");
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
            throw new IllegalArgumentException("'" + text + "' is not a duration (like 500ms, 10s, 1m)");
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
            try {
                return parseDuration(p.getValueAsString());
            } catch (IllegalArgumentException | NullPointerException e) {
                throw InvalidFormatException.from(p,
                        "'" + p.getText() + "' is not a duration (like 500ms, 10s, 1m)", p.getText(), Duration.class);
            }
        }
    }
}
