package org.panamardma.oncrpc;

/**
 * The header of a reply ({@code reply_body} of RFC 5531 section 9): accepted (the call was authenticated, whatever
 * its outcome) or rejected.
 */
public sealed interface RpcReply extends RpcMessage permits AcceptedReply, RejectedReply {}
