package org.panamardma.nfs.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

/** The command's address syntax and its log line format (what the device tests grep for WARN and ERROR). */
class NfsServerMainTest {
    @Test
    void addressesWithAndWithoutAHost() throws Exception {
        assertEquals(new InetSocketAddress(InetAddress.getByName("10.77.0.2"), 20049),
                NfsServerMain.address("10.77.0.2:20049"));
        assertEquals(new InetSocketAddress(InetAddress.getByName("fd77::2"), 20049),
                NfsServerMain.address("[fd77::2]:20049"));
        assertEquals(new InetSocketAddress(2049), NfsServerMain.address(":2049"));
        assertEquals(new InetSocketAddress(2049), NfsServerMain.address("2049"));
        assertThrows(IllegalArgumentException.class, () -> NfsServerMain.address("10.77.0.2:nfs"));
    }

    @Test
    void oneLinePerRecordWithTheLevelNamedAsTheTestsGrepForIt() {
        NfsServerMain.LineFormat f = new NfsServerMain.LineFormat();
        LogRecord warn = new LogRecord(Level.WARNING, "careful");
        warn.setLoggerName("org.panamardma.rpcrdma.server.ServerConnection");
        String line = f.format(warn);
        assertTrue(JavaNfsServerProcessPattern.PROBLEM.matcher(line).find(), line);
        assertTrue(line.endsWith(" WARN  ServerConnection: careful\n"), line);
        LogRecord severe = new LogRecord(Level.SEVERE, "broken");
        assertTrue(JavaNfsServerProcessPattern.PROBLEM.matcher(f.format(severe)).find());
        LogRecord info = new LogRecord(Level.INFO, "MNT /srv by uid 0");
        assertTrue(!JavaNfsServerProcessPattern.PROBLEM.matcher(f.format(info)).find());
    }

    /** The pattern of the device tests' JavaNfsServerProcess (another package), repeated here to pin it. */
    static final class JavaNfsServerProcessPattern {
        static final java.util.regex.Pattern PROBLEM = java.util.regex.Pattern.compile("^\\S+ (WARN|ERROR) ");
    }
}
