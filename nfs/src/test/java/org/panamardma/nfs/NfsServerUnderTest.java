package org.panamardma.nfs;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The Java NFS server a device test mounts: in the test's JVM, or as a process of its own. */
interface NfsServerUnderTest extends AutoCloseable {
    String name();

    Path export();

    String address();

    int tcpPort();

    int mountPort();

    int rdmaPort();

    void start() throws IOException, InterruptedException;

    /** The server's log (or its statistics lines). */
    String log() throws IOException;

    /** WARN and ERROR lines of the server. */
    List<String> problems() throws IOException;

    /** The last value of {@code key=N} in the log (the statistics lines), or -1. */
    default long lastCount(String key) throws IOException {
        Matcher m = Pattern.compile("\\b" + Pattern.quote(key) + "=(\\d+)").matcher(log());
        long last = -1;
        while (m.find()) {
            last = Long.parseLong(m.group(1));
        }
        return last;
    }

    @Override
    void close() throws InterruptedException;
}
