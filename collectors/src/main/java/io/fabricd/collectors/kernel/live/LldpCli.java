package io.fabricd.collectors.kernel.live;

import io.fabricd.collectors.kernel.HostReadException;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * lldpd's neighbours on the live host: {@code lldpcli -f json show neighbors details}, run by its
 * full path (never looked up in PATH), with stdin closed, a 3 s limit and output bounded to
 * {@link #MAX_BYTES}. lldpcli asks lldpd over its socket ({@code /run/lldpd.socket}, mode 0770, group
 * {@code _lldpd}): fabricd's user must be in that group (docs/switch-evidence.md). No lldpcli: empty
 * (unknown). lldpcli that fails (lldpd not running, socket refused) or hangs: a read failure naming why.
 */
final class LldpCli {
    static final List<String> PATHS = List.of("/usr/sbin/lldpcli", "/usr/bin/lldpcli", "/usr/local/sbin/lldpcli");
    static final String CALL = "lldpcli -f json show neighbors details";
    static final long TIMEOUT_MS = 3000;
    static final int MAX_BYTES = 1 << 20;

    private LldpCli() {
    }

    static Optional<String> neighbors() throws HostReadException {
        Path cli = PATHS.stream().map(Path::of).filter(Files::isExecutable).findFirst().orElse(null);
        if (cli == null) {
            return Optional.empty();
        }
        return Optional.of(run(List.of(cli.toString(), "-f", "json", "show", "neighbors", "details")));
    }

    /** Runs {@code command} and returns what it printed; a failure, timeout or overflow as a read failure of {@link #CALL}. */
    static String run(List<String> command) throws HostReadException {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new HostReadException(CALL, "EACCES", "cannot run " + command.get(0) + ": " + e.getMessage());
        }
        try (InputStream in = p.getInputStream()) {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buf = new byte[8192];
            while (true) {
                int ready = in.available();
                if (ready > 0) {
                    out.write(buf, 0, in.read(buf, 0, Math.min(buf.length, ready)));
                    if (out.size() > MAX_BYTES) {
                        throw new HostReadException(CALL, "EFBIG", "lldpcli printed more than " + MAX_BYTES + " bytes");
                    }
                } else if (!p.isAlive()) {
                    if (in.available() == 0) {
                        break; // exited, and all it wrote is read (never a blocking read: a child could hold the pipe)
                    }
                } else if (System.nanoTime() > deadline) {
                    throw new HostReadException(CALL, "ETIMEDOUT", "lldpcli did not answer within " + TIMEOUT_MS + " ms: is lldpd stuck?");
                } else {
                    p.waitFor(20, TimeUnit.MILLISECONDS);
                }
            }
            String text = out.toString(StandardCharsets.UTF_8);
            int rc = p.waitFor();
            if (rc != 0) {
                String first = text.strip().lines().findFirst().orElse("no message");
                throw new HostReadException(CALL, "EIO", "lldpcli exited " + rc + ": " + first
                        + " (is lldpd running, and is fabricd's user in lldpd's group _lldpd?)");
            }
            return text;
        } catch (HostReadException e) {
            throw e;
        } catch (IOException e) {
            throw new HostReadException(CALL, "EIO", e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new HostReadException(CALL, "EINTR", "interrupted");
        } finally {
            p.destroyForcibly();
        }
    }
}
