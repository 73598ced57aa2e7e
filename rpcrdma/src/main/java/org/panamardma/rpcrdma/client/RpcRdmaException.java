package org.panamardma.rpcrdma.client;

import java.io.IOException;

/** A call over RPC-over-RDMA failed at the transport: see the subclasses. */
public class RpcRdmaException extends IOException {
    private static final long serialVersionUID = 1L;

    /**
     * A transport failure.
     *
     * @param message what failed
     */
    public RpcRdmaException(String message) {
        super(message);
    }

    /**
     * A transport failure with its cause.
     *
     * @param message what failed
     * @param cause why
     */
    public RpcRdmaException(String message, Throwable cause) {
        super(message, cause);
    }

    /** The connection was lost or closed while the call was pending (or before it was sent). */
    public static final class ConnectionLost extends RpcRdmaException {
        private static final long serialVersionUID = 1L;

        /**
         * The connection is gone.
         *
         * @param message which connection and how it ended
         * @param cause the connection's error, or null
         */
        public ConnectionLost(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** No reply within the call's timeout. */
    public static final class Timeout extends RpcRdmaException {
        private static final long serialVersionUID = 1L;

        /**
         * The call timed out.
         *
         * @param message which call and its timeout
         */
        public Timeout(String message) {
            super(message);
        }
    }

    /** The server answered RDMA_ERROR with ERR_VERS (RFC 8166 section 4.5): it speaks versions low to high only. */
    public static final class VersionError extends RpcRdmaException {
        private static final long serialVersionUID = 1L;
        /** The lowest version the server speaks. */
        private final int low;
        /** The highest version the server speaks. */
        private final int high;

        /**
         * The server refused our version.
         *
         * @param message what the server said
         * @param low the lowest version it speaks
         * @param high the highest version it speaks
         */
        public VersionError(String message, int low, int high) {
            super(message);
            this.low = low;
            this.high = high;
        }

        /** {@return the lowest version the server speaks} */
        public int low() {
            return low;
        }

        /** {@return the highest version the server speaks} */
        public int high() {
            return high;
        }
    }

    /**
     * The server answered RDMA_ERROR with ERR_CHUNK (RFC 8166 section 4.5), or another error code (draft section
     * 4.3): it could not parse or process our transport header or chunks.
     */
    public static final class ChunkError extends RpcRdmaException {
        private static final long serialVersionUID = 1L;
        /** The {@code rdma_err} code. */
        private final int code;

        /**
         * The server refused our chunks.
         *
         * @param message what the server said
         * @param code its {@code rdma_err} code
         */
        public ChunkError(String message, int code) {
            super(message);
            this.code = code;
        }

        /** {@return the rdma_err code (2 for ERR_CHUNK)} */
        public int code() {
            return code;
        }
    }

    /** The reply could not be used: a malformed transport header or RPC reply, or an unexpected message type. */
    public static final class BadReply extends RpcRdmaException {
        private static final long serialVersionUID = 1L;

        /**
         * The reply is unusable.
         *
         * @param message what is wrong with the reply
         * @param cause the decoder's error, or null
         */
        public BadReply(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
