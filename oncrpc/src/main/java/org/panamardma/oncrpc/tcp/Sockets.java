package org.panamardma.oncrpc.tcp;

import java.io.IOException;
import java.net.Socket;

/** What the server's acceptor does to a socket it will not serve, and its pause after a failed accept. */
final class Sockets {
    private Sockets() {}

    /**
     * Sleeps briefly after an accept failed (out of file descriptors, for instance), so that the acceptor does not
     * spin on an error that lasts; keeps the interrupt for the accept loop to see.
     */
    static void pause() {
        try {
            Thread.sleep(10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Closes a refused connection with a TCP RST (SO_LINGER 0) rather than a FIN, so that the server keeps no
     * TIME_WAIT state for clients it turned away.
     */
    static void reset(Socket socket) {
        try {
            socket.setSoLinger(true, 0);
        } catch (IOException ignored) {
            // closed anyway
        }
        closeQuietly(socket);
    }

    /** Closes {@code socket}; a failure to close leaves nothing to do. */
    static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // nothing more to do
        }
    }
}
