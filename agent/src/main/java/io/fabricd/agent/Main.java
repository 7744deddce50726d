package io.fabricd.agent;

import io.fabricd.agent.cli.DiagnoseCommand;
import io.fabricd.agent.cli.ExecutionErrors;
import io.fabricd.agent.cli.InventoryCommand;
import io.fabricd.agent.cli.MetricsCommand;
import io.fabricd.agent.cli.BwCommand;
import io.fabricd.agent.cli.PreflightCommand;
import io.fabricd.agent.cli.ProbeCommand;
import io.fabricd.agent.cli.SnapshotCommand;
import io.fabricd.agent.cli.Stdout;
import io.fabricd.agent.cli.UsageErrors;
import io.fabricd.agent.cli.Version;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.logging.ConsoleHandler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine;

/** {@code fabricd}: the command line of docs/spec/interfaces.md. */
@Command(name = "fabricd", mixinStandardHelpOptions = true, versionProvider = Version.class,
        description = "Fabric operations and telemetry for RDMA hosts (InfiniBand, RoCE).",
        subcommands = {RunCommand.class, MetricsCommand.class, SnapshotCommand.class, DiagnoseCommand.class, InventoryCommand.class,
                ProbeCommand.class, BwCommand.class, PreflightCommand.class},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:success", "1:diagnose found a finding at or above --fail-on; preflight excluded a node or found a link bad",
            "2:bad usage or unusable input, the command could not run (an internal error too), or its output was not written whole"})
public final class Main implements Runnable {
    /** JUL holds loggers weakly: keep the ones whose level fabricd sets. */
    private static final Logger NETTY = Logger.getLogger("io.netty");
    /** fabric8's informer logs a stack trace at WARNING on every retry; the probe service reports the problem once. */
    private static final Logger FABRIC8 = Logger.getLogger("io.fabric8");

    @CommandLine.Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw UsageErrors.commandRequired(spec);
    }

    public static void main(String[] args) {
        configureLogging();
        Stdout stdout = Stdout.claim();
        PrintWriter err = new PrintWriter(System.err, true);
        int code = execute(args, stdout.writer(), err);
        try {
            stdout.deliver();
        } catch (IOException e) {
            // a result cut short must not exit as if it were whole (0, or 1 for findings); a reader
            // that stopped reading (`| head`) knows it did, and is not told
            if (!Stdout.readerGone(e)) {
                err.println("fabricd: cannot write the output to stdout: " + (e.getMessage() == null ? e.getClass().getSimpleName()
                        : e.getMessage()));
            }
            code = ExecutionErrors.USAGE;
        }
        System.exit(code);
    }

    /** Runs the command line; returns the exit code (used by tests in-process). */
    public static int execute(String[] args, PrintWriter out, PrintWriter err) {
        CommandLine cl = new CommandLine(new Main());
        cl.setOut(out);
        cl.setErr(err);
        // --format JSON, --fail-on Warning: the value is clear whatever its case
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        // an argument starting with @ is a value (preflight's --nodes @FILE reads a node file), never
        // picocli's argument file, whose lines would become options and arguments
        cl.setExpandAtFiles(false);
        cl.setParameterExceptionHandler(new UsageErrors());
        cl.setExecutionExceptionHandler(new ExecutionErrors());
        return cl.execute(args);
    }

    static void configureLogging() {
        if (System.getProperty("java.util.logging.config.file") != null) {
            return;
        }
        System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tFT%1$tT.%1$tLZ %4$s %3$s: %5$s%6$s%n");
        LogManager.getLogManager().reset();
        Logger root = Logger.getLogger("");
        ConsoleHandler h = new ConsoleHandler();
        h.setFormatter(new SimpleFormatter());
        h.setLevel(Level.ALL);
        root.addHandler(h);
        root.setLevel(Level.INFO);
        NETTY.setLevel(Level.WARNING);
        FABRIC8.setLevel(Level.SEVERE);
    }
}
