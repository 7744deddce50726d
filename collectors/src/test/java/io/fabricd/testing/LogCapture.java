package io.fabricd.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The messages a java.util.logging logger emits at or above a level, for tests whose subject is a
 * log line: {@code attach()} before, {@code detach()} after (an @AfterEach).
 */
public final class LogCapture extends Handler {
    private final Logger logger;
    private final Level least;
    private final boolean quiet;
    private final List<String> messages = new CopyOnWriteArrayList<>();

    /** quiet: the captured lines do not also go to the test log (they are the test's subject). */
    public LogCapture(Logger logger, Level least, boolean quiet) {
        this.logger = logger;
        this.least = least;
        this.quiet = quiet;
    }

    public LogCapture attach() {
        logger.addHandler(this);
        if (quiet) {
            logger.setUseParentHandlers(false);
        }
        return this;
    }

    public void detach() {
        logger.removeHandler(this);
        if (quiet) {
            logger.setUseParentHandlers(true);
        }
    }

    /** The messages captured so far, oldest first. */
    public List<String> messages() {
        return List.copyOf(messages);
    }

    /** Forgets what was captured. */
    public void clear() {
        messages.clear();
    }

    @Override
    public void publish(LogRecord r) {
        if (r.getLevel().intValue() >= least.intValue()) {
            messages.add(r.getMessage());
        }
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
    }
}
