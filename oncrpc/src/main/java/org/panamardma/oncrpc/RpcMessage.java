package org.panamardma.oncrpc;

/**
 * An ONC RPC version 2 message header (RFC 5531 section 9, {@code rpc_msg}): a call or a reply, each identified by
 * its transaction id. The procedure's arguments or results follow the header in the XDR stream; the header types
 * do not hold them, so that they can be decoded in place by the procedure's own code.
 */
public sealed interface RpcMessage permits RpcCall, RpcReply {
    /** The RPC version this implementation speaks (RFC 5531 section 9: {@code rpcvers} MUST be 2). */
    int RPC_VERSION = 2;

    /** {@return the transaction id, which a reply copies from its call} */
    int xid();
}
