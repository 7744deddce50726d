package io.fabricd.agent.cli;

import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.locks.LockSupport;

/**
 * The process's standard output carries a command's result and nothing else: scripts parse
 * {@code diagnose --format json}, {@code metrics} and {@code preflight --format json} as one
 * document. A command prints into {@link #writer()}, a buffer; {@link #deliver()} writes the buffer
 * to file descriptor 1 once the command is done, all of it or a failure. From {@link #claim()} on,
 * {@code System.out} is stderr, so that nothing else in the process (a library, a thread, a log
 * handler) can put a line into the result; the JVM's own messages go to stderr by its flags
 * (packaging/jvm.options).
 */
public final class Stdout {
    /** How long to wait for a reader that keeps a non-blocking stdout full before trying again. */
    private static final long FULL_PIPE_WAIT_NANOS = 1_000_000;

    private final WritableByteChannel fd1;
    private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    private final PrintWriter writer = new PrintWriter(new OutputStreamWriter(buffer, StandardCharsets.UTF_8));

    Stdout(WritableByteChannel fd1) {
        this.fd1 = fd1;
    }

    /** Takes file descriptor 1 for the result; {@code System.out} is stderr from now on. */
    public static Stdout claim() {
        Stdout s = new Stdout(new FileOutputStream(FileDescriptor.out).getChannel());
        System.out.flush();
        System.setOut(System.err);
        return s;
    }

    /** Where the command prints its result (UTF-8). */
    public PrintWriter writer() {
        return writer;
    }

    /** Whether a failed {@link #deliver()} is the reader's leaving (EPIPE: {@code | head}), not a failure to report. */
    public static boolean readerGone(IOException e) {
        return "Broken pipe".equals(e.getMessage());
    }

    /**
     * Writes what the command printed, every byte: a pipe whose reader is slow (a non-blocking one
     * that is full) is waited for. IOException when stdout refuses it (closed, a full disk, a
     * reader gone): the caller must not exit as if the result had been delivered.
     */
    public void deliver() throws IOException {
        writer.flush();
        ByteBuffer b = ByteBuffer.wrap(buffer.toByteArray());
        while (b.hasRemaining()) {
            if (fd1.write(b) == 0) {
                LockSupport.parkNanos(FULL_PIPE_WAIT_NANOS);
            }
        }
    }
}
