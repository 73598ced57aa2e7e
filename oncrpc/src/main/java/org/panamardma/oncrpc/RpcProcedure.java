package org.panamardma.oncrpc;

import org.panamardma.xdr.XdrEncodable;

/**
 * The body of one remote procedure: takes its decoded arguments, returns its results as something that encodes
 * itself. Argument decoding is kept apart (an {@link org.panamardma.xdr.XdrReader} registered alongside) so that
 * the dispatcher can tell GARBAGE_ARGS (the arguments did not decode) from SYSTEM_ERR (the procedure failed).
 *
 * <p>Results are encoded after the procedure returns, through the transport's encoder: bulk data written with
 * {@link org.panamardma.xdr.XdrEncoder#putEligibleOpaque} there is offered to the transport's
 * {@link org.panamardma.xdr.DataPlacement}, which is how an RDMA transport moves READ payloads by RDMA Write.
 *
 * @param <A> the decoded argument type
 */
@FunctionalInterface
public interface RpcProcedure<A> {
    /**
     * Runs the procedure. Called on a transport thread (a virtual thread for TCP), possibly on several threads at once
     * for calls of different connections, so the body must be thread-safe; whatever it must keep beyond the call it
     * copies, as the arguments may be slices of the transport's receive buffer.
     *
     * @param arguments the decoded arguments
     * @param call the call header, for its credential and numbers
     * @return the results; {@link XdrEncodable#VOID} for none
     * @throws Exception any failure, answered with SYSTEM_ERR
     */
    XdrEncodable call(A arguments, RpcCall call) throws Exception;
}
