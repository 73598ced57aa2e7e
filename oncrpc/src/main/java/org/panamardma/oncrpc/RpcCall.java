package org.panamardma.oncrpc;

import java.util.Objects;

/**
 * The header of a call ({@code call_body} of RFC 5531 section 9); the procedure's arguments follow it.
 *
 * <p>{@code rpcVersion} is kept rather than assumed so that a server can answer a call of another version with
 * RPC_MISMATCH. Program, version and procedure are XDR {@code unsigned int}s held as their 32 bits.
 *
 * @param xid the transaction id
 * @param rpcVersion the RPC protocol version; {@value RpcMessage#RPC_VERSION} for every call this library makes
 * @param program the remote program number
 * @param version the program's version number
 * @param procedure the procedure number within that version
 * @param credential the caller's credential
 * @param verifier the caller's verifier
 */
public record RpcCall(
        int xid, int rpcVersion, int program, int version, int procedure, OpaqueAuth credential, OpaqueAuth verifier)
        implements RpcMessage {

    /**
     * Checks that credential and verifier are present: a call without them cannot be encoded.
     *
     * @throws NullPointerException if {@code credential} or {@code verifier} is null
     */
    public RpcCall {
        Objects.requireNonNull(credential, "credential");
        Objects.requireNonNull(verifier, "verifier");
    }

    /**
     * A version-2 call.
     *
     * @param xid the transaction id the reply will carry
     * @param program the remote program number
     * @param version the program's version number
     * @param procedure the procedure number within that version
     * @param credential the caller's credential
     * @param verifier the caller's verifier
     * @return the call header with {@code rpcVersion} {@value RpcMessage#RPC_VERSION}
     */
    public static RpcCall of(
            int xid, int program, int version, int procedure, OpaqueAuth credential, OpaqueAuth verifier) {
        return new RpcCall(xid, RPC_VERSION, program, version, procedure, credential, verifier);
    }
}
