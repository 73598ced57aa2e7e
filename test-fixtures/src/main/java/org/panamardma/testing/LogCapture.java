package org.panamardma.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Collects what one class logs (the modules log through SLF4J, bound to java.util.logging in the tests, named by class) so that a test can assert
 * on it: {@link #start()} in {@code @BeforeEach}, {@link #stop()} in {@code @AfterEach}. Records may come from any
 * thread (a callback's executor, a scheduled task).
 */
public final class LogCapture implements BeforeEachCallback, AfterEachCallback {
    private final Logger logger;
    private final List<LogRecord> records = new ArrayList<>();
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord r) {
            synchronized (records) {
                records.add(r);
            }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    private LogCapture(Class<?> source) {
        this.logger = Logger.getLogger(source.getName());
    }

    /**
     * A capture of what {@code source} logs, not yet started.
     *
     * @param source the class whose logger (its name's) is captured
     * @return the capture
     */
    public static LogCapture of(Class<?> source) {
        return new LogCapture(source);
    }

    /** Starts collecting. */
    public void start() {
        logger.addHandler(handler);
    }

    /** Stops collecting. */
    public void stop() {
        logger.removeHandler(handler);
    }

    /** Starts collecting before each test, as an extension. */
    @Override
    public void beforeEach(ExtensionContext context) {
        start();
    }

    /** Stops collecting after each test, as an extension. */
    @Override
    public void afterEach(ExtensionContext context) {
        stop();
    }

    /** {@return the records collected so far, oldest first (a copy)} */
    public List<LogRecord> records() {
        synchronized (records) {
            return List.copyOf(records);
        }
    }
}
