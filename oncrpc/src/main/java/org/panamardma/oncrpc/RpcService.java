package org.panamardma.oncrpc;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.Optional;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncoder;
import org.panamardma.xdr.XdrException;

/**
 * What a server transport hands each received call to: something that runs it and writes its complete reply.
 * {@link RpcDispatcher} is this library's own; a bridge to another ONC RPC library is another (the module
 * {@code oncrpc4j-rdma} serves dCache oncrpc4j programs this way, decoding each call with oncrpc4j itself, which is
 * why the whole message and the connection's addresses are handed over and not only the decoded header).
 *
 * <p>The transport has decoded the call header ({@link Incoming#header()}) and answered what it serves itself (the
 * RPC-over-RDMA Connection Configuration Protocol) before a service sees a call. A service writes the reply into the
 * transport's encoder, whose {@link org.panamardma.xdr.DataPlacement} moves items written with
 * {@link XdrEncoder#putEligibleOpaque} out of band (by RDMA Write into the client's Write chunk over RPC-over-RDMA),
 * and it must have written the reply when {@link #serve} returns: the transport sends it then.
 */
@FunctionalInterface
public interface RpcService {
    /**
     * One received call.
     *
     * @param header the call header as the transport decoded it
     * @param message the whole call message: the header's bytes, then the arguments; valid only while
     *                {@link #serve} runs (a transport reuses or frees it afterwards)
     * @param arguments a decoder over {@code message}, standing at the arguments
     * @param local the address the call came in on, if the transport knows it
     * @param remote the caller's address, if the transport knows it
     */
    record Incoming(
            RpcCall header,
            MemorySegment message,
            XdrDecoder arguments,
            Optional<InetSocketAddress> local,
            Optional<InetSocketAddress> remote) {
        /**
         * Checks that every component is present; an address the transport does not know is {@link Optional#empty()},
         * not null.
         *
         * @throws NullPointerException if a component is null
         */
        public Incoming {
            Objects.requireNonNull(header, "header");
            Objects.requireNonNull(message, "message");
            Objects.requireNonNull(arguments, "arguments");
            Objects.requireNonNull(local, "local");
            Objects.requireNonNull(remote, "remote");
        }
    }

    /**
     * Runs {@code call} and writes its complete reply (the RPC reply header, then the results on SUCCESS) at
     * {@code out}'s position. Results that do not fit are the service's to replace by an error reply, rewinding
     * {@code out} as {@link RpcDispatcher#dispatch} does.
     *
     * @param call the call
     * @param out where the reply goes
     * @throws XdrException if not even an error reply fits {@code out}
     */
    void serve(Incoming call, XdrEncoder out);
}
