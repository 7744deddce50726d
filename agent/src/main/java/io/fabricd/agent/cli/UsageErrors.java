package io.fabricd.agent.cli;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * A command line fabricd cannot parse (an unknown option, a bad value, a missing command): the
 * error in one line, picocli's suggestions for a mistyped option, and where the full usage is,
 * instead of the whole usage text under the error. Exit code 2 (bad usage).
 */
public final class UsageErrors implements CommandLine.IParameterExceptionHandler {
    @Override
    public int handleParseException(ParameterException ex, String[] args) {
        CommandLine cmd = ex.getCommandLine();
        PrintWriter err = cmd.getErr();
        String name = cmd.getCommandSpec().qualifiedName();
        err.println(name + ": " + ex.getMessage());
        if (ex instanceof UnmatchedArgumentException u) {
            UnmatchedArgumentException.printSuggestions(u, err);
        }
        err.println("Try '" + name + " --help' for more information.");
        err.flush();
        return ExecutionErrors.USAGE;
    }

    /**
     * The error of a command run without one of its subcommands: "a command is required: run,
     * metrics, ..." with every subcommand picocli has registered, so the list cannot drift from them.
     */
    public static ParameterException commandRequired(CommandSpec spec) {
        return new ParameterException(spec.commandLine(), "a command is required: " + String.join(", ", spec.subcommands().keySet()));
    }
}
