package io.fabricd.agent.config;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * Where each key and list item of a YAML file is: its line, by JSON pointer ("/collection/interval",
 * "/rdma/include_devices/0"). A key given twice in one mapping and a YAML syntax error are
 * problems of their own; of a key given twice the last is the one read, and its line the one kept.
 */
final class YamlLines {
    private final Map<String, Integer> lines = new HashMap<>();

    private YamlLines() {
    }

    /**
     * Reads {@code text} once; null (with the problem added) when it is not YAML at all, so that
     * nothing else can be said about it.
     */
    static YamlLines scan(YAMLFactory yaml, String text, ConfigProblems problems) {
        YamlLines y = new YamlLines();
        try (JsonParser p = yaml.createParser(text)) {
            JsonToken t;
            while ((t = p.nextToken()) != null) {
                if (t == JsonToken.END_OBJECT || t == JsonToken.END_ARRAY) {
                    continue;
                }
                String at = p.getParsingContext().pathAsPointer().toString();
                int line = p.currentTokenLocation().getLineNr();
                if (tooLong(p, t, line, problems)) {
                    return null; // said once; nothing after it is read, nothing quotes it
                }
                if (t == JsonToken.FIELD_NAME) {
                    Integer before = y.lines.put(at, line);
                    if (before != null) {
                        problems.add(line, dotted(at) + ": given twice, on lines " + before + " and " + line + " (keep one)");
                        // the value read is the last one: what is said of it is said of its lines, and
                        // the keys and items of the one before are gone with it
                        y.lines.keySet().removeIf(k -> k.startsWith(at + "/"));
                    }
                } else {
                    y.lines.putIfAbsent(at, line);
                }
            }
        } catch (JacksonException e) {
            syntax(e, problems);
            return null;
        } catch (IOException e) {
            problems.add(1, "cannot be read: " + ConfigText.reason(e));
            return null;
        }
        return y;
    }

    /** A key or value longer than {@link ConfigText#MAX_SCALAR_CHARS}: the problem, named by where it is, never quoted. */
    private static boolean tooLong(JsonParser p, JsonToken t, int line, ConfigProblems problems) throws IOException {
        if (t == JsonToken.FIELD_NAME && p.currentName().length() > ConfigText.MAX_SCALAR_CHARS) {
            String in = p.getParsingContext().getParent() == null ? "" : p.getParsingContext().getParent().pathAsPointer().toString();
            problems.add(line, "a key of " + p.currentName().length() + " characters" + (in.isEmpty() ? "" : " in " + dotted(in))
                    + ", more than the " + ConfigText.MAX_SCALAR_CHARS + " a key may have" + ConfigProblems.at(line));
            return true;
        }
        if (t != JsonToken.FIELD_NAME && t.isScalarValue() && p.getText() != null && p.getText().length() > ConfigText.MAX_SCALAR_CHARS) {
            problems.add(line, dotted(p.getParsingContext().pathAsPointer().toString()) + ": a value of " + p.getText().length()
                    + " characters, more than the " + ConfigText.MAX_SCALAR_CHARS + " a value may have" + ConfigProblems.at(line));
            return true;
        }
        return false;
    }

    /** The pointer of key {@code name} inside the mapping at {@code pointer}: "/http_server_config/headers" + "a/b". */
    static String child(String pointer, String name) {
        return pointer + "/" + name.replace("~", "~0").replace("/", "~1");
    }

    /** The line of the key or item at {@code pointer}, else of the nearest one above it; 0 when unknown. */
    int line(String pointer) {
        for (String p = pointer; !p.isEmpty(); p = p.substring(0, p.lastIndexOf('/'))) {
            Integer l = lines.get(p);
            if (l != null) {
                return l;
            }
        }
        return 0;
    }

    /** The line of the key a Jackson error is about. */
    int line(JsonMappingException e) {
        return line(pointer(e.getPath()));
    }

    /** A Jackson error's path as a JSON pointer: "/probe/sizes/1". */
    static String pointer(List<JsonMappingException.Reference> path) {
        String p = "";
        for (JsonMappingException.Reference r : path) {
            p = r.getFieldName() != null ? child(p, r.getFieldName()) : r.getIndex() >= 0 ? p + "/" + r.getIndex() : p;
        }
        return p;
    }

    /** "/probe/sizes/1" as the configuration's documentation writes it: "probe.sizes[1]". */
    static String dotted(String pointer) {
        StringBuilder sb = new StringBuilder();
        for (String seg : pointer.substring(pointer.isEmpty() ? 0 : 1).split("/", -1)) {
            if (seg.isEmpty()) {
                continue;
            }
            if (seg.chars().allMatch(Character::isDigit) && sb.length() > 0) {
                sb.append('[').append(seg).append(']');
            } else {
                sb.append(sb.length() == 0 ? "" : ".").append(seg.replace("~1", "/").replace("~0", "~"));
            }
        }
        return sb.length() == 0 ? "(top level)" : sb.toString();
    }

    /** A YAML syntax error in one line: what the parser found, and where (not the parser's multi-line excerpt). */
    private static void syntax(JacksonException e, ConfigProblems problems) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof MarkedYAMLException m) {
                Mark mark = m.getProblemMark() != null ? m.getProblemMark() : m.getContextMark();
                String what = m.getProblem() != null ? m.getProblem() : m.getContext();
                int line = mark == null ? 0 : mark.getLine() + 1;
                problems.add(line, "not valid YAML: " + (what == null ? "syntax error" : what.strip())
                        + (mark == null ? "" : " (line " + line + ", column " + (mark.getColumn() + 1) + ")"));
                return;
            }
        }
        int line = e.getLocation() == null ? 0 : e.getLocation().getLineNr();
        String msg = e.getOriginalMessage() == null ? "" : e.getOriginalMessage().lines().findFirst().orElse("");
        problems.add(line, "not valid YAML: " + (msg.isBlank() || msg.contains("`") ? "syntax error" : msg.strip()) + ConfigProblems.at(line));
    }
}
