package io.fabricd.agent.config;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads {@code --config FILE}; every problem becomes one IllegalArgumentException with a clear message. */
public final class ConfigLoader {
    private static final Pattern DURATION = Pattern.compile("^(\\d+(?:\\.\\d+)?)(ms|s|m|h)$");

    private ConfigLoader() {
    }

    public static AgentConfig load(Path file) {
        if (file == null) {
            return new AgentConfig();
        }
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("config file " + file + " does not exist");
        }
        ObjectMapper m = new ObjectMapper(new YAMLFactory())
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .registerModule(new SimpleModule().addDeserializer(Duration.class, new DurationDeserializer()));
        try {
            AgentConfig c = Files.size(file) == 0 ? new AgentConfig() : m.readValue(file.toFile(), AgentConfig.class);
            if (c == null) {
                c = new AgentConfig();
            }
            c.validate();
            return c;
        } catch (UnrecognizedPropertyException e) {
            throw new IllegalArgumentException("config file " + file + ": unknown key '" + e.getPropertyName() + "'"
                    + where(e) + "; known keys: " + e.getKnownPropertyIds());
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

    /** "10s", "500ms", "1m", "1h", or a number of seconds. */
    public static Duration parseDuration(String text) {
        String t = text.strip();
        if (t.matches("^\\d+(\\.\\d+)?$")) {
            return Duration.ofMillis(Math.round(Double.parseDouble(t) * 1000));
        }
        Matcher mt = DURATION.matcher(t);
        if (!mt.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a duration (like 500ms, 10s, 1m)");
        }
        double v = Double.parseDouble(mt.group(1));
        long ms = switch (mt.group(2)) {
            case "ms" -> Math.round(v);
            case "s" -> Math.round(v * 1000);
            case "m" -> Math.round(v * 60_000);
            default -> Math.round(v * 3_600_000);
        };
        return Duration.ofMillis(ms);
    }

    private static final class DurationDeserializer extends JsonDeserializer<Duration> {
        @Override
        public Duration deserialize(JsonParser p, DeserializationContext ctx) throws IOException {
            try {
                return parseDuration(p.getValueAsString());
            } catch (IllegalArgumentException | NullPointerException e) {
                throw com.fasterxml.jackson.databind.exc.InvalidFormatException.from(p,
                        "'" + p.getText() + "' is not a duration (like 500ms, 10s, 1m)", p.getText(), Duration.class);
            }
        }
    }
}
