package org.panamardma.oncrpc.tcp;

import java.time.Duration;

/**
 * What one connection of a {@link TcpRpcServer} works with: the record and reply sizes, the calls at once, and the
 * deadlines its watchdog keeps ({@link TcpRpcServer.Builder} documents each).
 *
 * @param maxRecordSize the largest call record accepted
 * @param replyBufferSize the buffer a reply's inline part is encoded into
 * @param maxCallsPerConnection calls running at once on one connection
 * @param memoryWait how long a record waits for memory before its call is dropped
 * @param idleTimeout how long a connection with nothing in progress stays open
 * @param readTimeout how long a record may take to arrive, from its first byte
 * @param writeTimeout how long a reply may take to be written
 */
record TcpSettings(
        int maxRecordSize,
        int replyBufferSize,
        int maxCallsPerConnection,
        Duration memoryWait,
        Duration idleTimeout,
        Duration readTimeout,
        Duration writeTimeout) {
    /** {@return how often the watchdog looks: a quarter of the shortest timeout, within 10 ms and 1 s} */
    Duration watchPeriod() {
        long shortest = Math.min(idleTimeout.toMillis(), Math.min(readTimeout.toMillis(), writeTimeout.toMillis()));
        return Duration.ofMillis(Math.max(10, Math.min(1000, shortest / 4)));
    }
}
