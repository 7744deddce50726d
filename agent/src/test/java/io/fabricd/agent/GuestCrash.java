package io.fabricd.agent;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What crashed in a Soft-RoCE VM run, from what testbed/softroce-vm.sh leaves in the run's out folder
 * (its path is in the harness' {@code [host] run dir ...} line): {@code hs_err_pid*.log}, the fatal
 * error reports of the guest's JVMs (bin/fabricd runs them with {@code -XX:ErrorFile} there), and
 * {@code crashes.log}, a line for each guest process a core-dumping signal killed (SIGABRT, SIGILL,
 * SIGSEGV, ..., foreground or background). The guest's output is read too, for the shell's report of
 * a command killed by a signal ({@code Aborted}, {@code Illegal instruction}, ...) and a JVM's fatal
 * error banner, in case neither file came back.
 */
final class GuestCrash {
    private static final Pattern RUN_DIR = Pattern.compile("\\[host\\] run dir (\\S+),");
    /** dash prints the signal's description alone; bash "bash: line 3: 1234 Aborted (core dumped) cmd" */
    private static final Pattern SHELL_REPORT = Pattern.compile(
            "(?m)^(?:.*: line \\d+: +\\d+ +)?(Aborted|Illegal instruction|Segmentation fault|Bus error|Floating point exception)"
                    + "(?: +\\(core dumped\\))?(?: .*)?$");
    private static final Pattern JVM_SIGNAL = Pattern.compile("(?m)^#\\s+(SIG[A-Z]+ \\(0x[0-9a-f]+\\) at pc=0x[0-9a-f]+)");
    private static final Pattern JVM_INTERNAL = Pattern.compile("(?m)^#\\s+((?:Internal Error|Out of Memory Error|There is insufficient memory)[^\\n]*)");
    private static final Pattern JVM_FRAME = Pattern.compile("(?m)^# Problematic frame:\\s*\\n#\\s+(.+)$");
    static final int ATTACHED_LINES = 24;

    private GuestCrash() {
    }

    /** The run's out folder named in the harness' output, or null. */
    static Path outDir(String output) {
        Matcher m = RUN_DIR.matcher(output);
        return m.find() ? Path.of(m.group(1), "out") : null;
    }

    /**
     * Null when nothing crashed; else one line naming the crash and its file, then the first lines of
     * the fatal error report (or the crash lines) as evidence.
     */
    static String describe(String output) {
        Path out = outDir(output);
        List<String> found = new ArrayList<>();
        StringBuilder evidence = new StringBuilder();
        for (Path hsErr : hsErrFiles(out)) {
            String text = read(hsErr);
            found.add("JVM fatal error " + what(text) + " (" + hsErr + ")");
            if (evidence.length() == 0) {
                evidence.append(head(text));
            }
        }
        Path log = out == null ? null : out.resolve("crashes.log");
        if (log != null && Files.isRegularFile(log)) {
            String text = read(log).strip();
            if (!text.isEmpty()) {
                text.lines().forEach(l -> found.add(l.replaceFirst("^[0-9.]+s: ", "") + " (" + log + ")"));
                evidence.append(evidence.length() == 0 ? "" : "\n").append(text);
            }
        }
        if (found.isEmpty()) {
            Matcher banner = JVM_SIGNAL.matcher(output);
            Matcher shell = SHELL_REPORT.matcher(output);
            if (banner.find()) {
                found.add("JVM fatal error " + what(output.substring(Math.max(0, banner.start() - 200))) + " (in the guest's output)");
            } else if (shell.find()) {
                found.add("a guest command died: \"" + shell.group().strip() + "\" (in the guest's output)");
            }
        }
        if (found.isEmpty()) {
            return null;
        }
        String more = found.size() > 1 ? " (+" + (found.size() - 1) + " more)" : "";
        return "guest crash: " + found.get(0) + more + (evidence.length() == 0 ? "" : "\n" + evidence);
    }

    /** "SIGILL (0x4) at pc=0x... in J 123 c1 java.lang.String.hashCode()I ...", or "Internal Error (...)". */
    static String what(String report) {
        Matcher sig = JVM_SIGNAL.matcher(report);
        Matcher internal = JVM_INTERNAL.matcher(report);
        String what = sig.find() ? sig.group(1) : internal.find() ? internal.group(1).strip() : "(no signal line)";
        Matcher frame = JVM_FRAME.matcher(report);
        return frame.find() ? what + " in " + frame.group(1).strip() : what;
    }

    private static List<Path> hsErrFiles(Path out) {
        if (out == null || !Files.isDirectory(out)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(out)) {
            return s.filter(p -> p.getFileName().toString().matches("hs_err_pid\\d+\\.log")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The report's header, up to its summary section. */
    private static String head(String report) {
        List<String> lines = new ArrayList<>();
        for (String l : report.lines().limit(ATTACHED_LINES).toList()) {
            if (l.contains("S U M M A R Y")) {
                break;
            }
            lines.add(l);
        }
        return String.join("\n", lines);
    }

    private static String read(Path p) {
        try {
            return new String(Files.readAllBytes(p), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }
}
