package org.panamardma.verbs.connection;

/**
 * Why an {@link RdmaConnection} can no longer post, once it cannot: the first cause recorded wins. Its monitor is
 * also the {@link ReceivePool}'s lock, so that a {@code receive()} that finds no failure queues its future before a
 * failure can be recorded, and the failure's sweep of the waiting futures then finds it.
 */
final class ConnectionFailure {
    private volatile ConnectionClosedException cause;

    /** The cause, or null while the connection can post. */
    ConnectionClosedException get() {
        return cause;
    }

    /** Records {@code c} unless a cause is recorded already. */
    synchronized void mark(ConnectionClosedException c) {
        if (cause == null) {
            cause = c;
        }
    }
}
