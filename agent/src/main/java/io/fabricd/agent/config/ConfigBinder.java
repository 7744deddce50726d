package io.fabricd.agent.config;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Binds a configuration file's YAML tree to {@link AgentConfig}, collecting every key that cannot
 * be bound (unknown, or a value of the wrong kind) rather than stopping at the first: each such key
 * is reported with its line and taken out of the tree, and binding goes on without it. Messages
 * say what is wrong in words, never a Java class name.
 */
final class ConfigBinder {
    /** More problems than this in one file: the rest is not worth listing. */
    private static final int MAX_PROBLEMS = 50;

    /** Jackson's "Numeric value (99999999999) out of range of int (-2147483648 - 2147483647)". */
    private static final Pattern OUT_OF_RANGE = Pattern.compile("Numeric value \\((.+)\\) out of range of \\w+ \\(-?\\d+ - (\\d+)\\)");

    private ConfigBinder() {
    }

    /** The configuration, or null when a problem was added and nothing can be bound. */
    static AgentConfig bind(ObjectMapper mapper, JsonNode tree, YamlLines lines, ConfigProblems problems) {
        if (tree == null || tree.isNull() || tree.isMissingNode()) {
            return AgentConfig.defaults(); // comments only
        }
        if (!tree.isObject()) {
            problems.add(1, "the file must be a mapping of keys to values (key: value lines), not "
                    + (tree.isArray() ? "a list" : "a single value") + " (line 1)");
            return null;
        }
        for (int i = 0; i < MAX_PROBLEMS; i++) {
            try {
                return mapper.treeToValue(tree, AgentConfig.class);
            } catch (JsonMappingException e) {
                int line = lines.line(e);
                problems.add(line, describe(e, line));
                if (!remove((ObjectNode) tree, e.getPath())) {
                    return null;
                }
            } catch (JacksonException | IllegalArgumentException e) {
                problems.add(0, words(e instanceof JacksonException j ? j.getOriginalMessage() : e.getMessage()));
                return null;
            }
        }
        return null;
    }

    /**
     * Takes the key an error is about out of the tree; for an item of a list, the whole list. False
     * when there is nothing to take out (the error is about the file as a whole).
     */
    private static boolean remove(ObjectNode root, List<JsonMappingException.Reference> path) {
        JsonNode node = root;
        ObjectNode parent = null;
        String field = null;
        for (JsonMappingException.Reference r : path) {
            if (r.getFieldName() == null || !(node instanceof ObjectNode o)) {
                break; // a list item, or inside a value that is not a mapping: take out what holds it
            }
            parent = o;
            field = r.getFieldName();
            node = o.get(field);
            if (node == null) {
                break;
            }
        }
        return parent != null && parent.remove(field) != null;
    }

    /** One error in words, with its key and line. */
    static String describe(JsonMappingException e, int line) {
        String pointer = YamlLines.pointer(e.getPath());
        String key = YamlLines.dotted(pointer);
        if (e instanceof UnrecognizedPropertyException u) {
            String section = key.contains(".") ? " in " + key.substring(0, key.lastIndexOf('.')) : "";
            String known = u.getKnownPropertyIds() == null ? "" : u.getKnownPropertyIds().stream().map(String::valueOf).sorted()
                    .collect(Collectors.joining(", "));
            return "unknown key " + ConfigText.quote(u.getPropertyName()) + section + ConfigProblems.at(line)
                    + (known.isEmpty() ? "" : "; known keys" + (section.isEmpty() ? "" : " there") + ": " + known);
        }
        if (e instanceof MismatchedInputException m && !(e.getCause() instanceof IllegalArgumentException)) {
            return key + ": " + mismatch(m) + ConfigProblems.at(line);
        }
        // a value a type refused itself ("'lots' is not a rate"): its own words
        Throwable c = e.getCause();
        String why = c instanceof IllegalArgumentException && c.getMessage() != null ? c.getMessage() : words(e.getOriginalMessage());
        return key + ": " + why + ConfigProblems.at(line);
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
                : t == Path.class ? "a file path"
                : t.isEnum() ? "one of " + Arrays.stream(t.getEnumConstants()).map(Objects::toString).collect(Collectors.joining(", "))
                : Collection.class.isAssignableFrom(t) || t.isArray() ? "a list"
                : Map.class.isAssignableFrom(t) ? "a mapping (key: value)"
                : t.getName().startsWith("io.fabricd.") ? "a section (key: value lines)" : "another kind of value";
        if (e instanceof InvalidFormatException f && f.getValue() != null) {
            return ConfigText.quote(f.getValue()) + " is not " + want;
        }
        String msg = e.getOriginalMessage();
        if (msg != null && msg.contains("out of range")) {
            return "the number is out of range: expected " + want;
        }
        return "expected " + want;
    }

    /** A parser's message without Java type names: the part after "problem:", else a plain statement. */
    static String words(String msg) {
        if (msg == null || msg.isBlank()) {
            return "a value fabricd cannot use here";
        }
        String m = msg.lines().findFirst().orElse("").strip();
        Matcher range = OUT_OF_RANGE.matcher(m);
        if (range.find()) {
            return ConfigText.shorten(range.group(1)) + " is out of range (at most " + range.group(2) + ")";
        }
        int p = m.indexOf("problem: ");
        if (p >= 0) {
            m = m.substring(p + "problem: ".length());
        }
        if (m.contains("`") || m.matches(".*\\b(java|javax|com\\.fasterxml|io\\.fabricd|org\\.yaml)\\.[a-z].*")) {
            return "a value fabricd cannot use here";
        }
        return m;
    }
}
