package io.fabricd.agent.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import picocli.CommandLine;

/**
 * A command that failed while it ran: one line on stderr, and an exit code that says fabricd could
 * not do what was asked, never one of a command's verdicts (1 is a finding at or above --fail-on for
 * diagnose, some node excluded for preflight). Unusable input (a bad value found late, a path that
 * cannot be read or written) says its reason; anything else is an internal error, its stack trace
 * with FABRICD_DEBUG set.
 */
public final class ExecutionErrors implements CommandLine.IExecutionExceptionHandler {
    /** Exit code for bad usage, unusable input, a command that could not run or an output not written whole (interfaces.md). */
    public static final int USAGE = 2;

    @Override
    public int handleExecutionException(Exception e, CommandLine cmd, CommandLine.ParseResult parsed) {
        PrintWriter err = cmd.getErr();
        if (e instanceof IllegalArgumentException || e instanceof UncheckedIOException || e instanceof IOException) {
            err.println("fabricd: " + message(e));
        } else {
            err.println("fabricd: internal error: " + e);
            if (System.getenv("FABRICD_DEBUG") != null) {
                e.printStackTrace(err);
            } else {
                err.println("(set FABRICD_DEBUG=1 for the stack trace)");
            }
        }
        err.flush();
        return USAGE;
    }

    /** An exception's message, or its kind when it has none: never an empty line. */
    static String message(Exception e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
