package org.panamardma.verbs;

import org.panamardma.verbs.ffi.verbs_h;

/**
 * Flags of a send-queue work request ({@code enum ibv_send_flags}), combined with {@code |}. Plain ints, so that
 * posting allocates nothing.
 */
public final class SendFlags {
    private SendFlags() {}

    /** No flag: an unsignaled request. */
    public static final int NONE = 0;
    /** Wait for earlier RDMA READs and atomics of this QP to complete before this request starts. */
    public static final int FENCE = verbs_h.IBV_SEND_FENCE;
    /** Produce a completion for this request (without it, only errors complete, unless the QP signals all). */
    public static final int SIGNALED = verbs_h.IBV_SEND_SIGNALED;
    /** Ask the receiver's CQ to raise an event even if it is armed for solicited events only. */
    public static final int SOLICITED = verbs_h.IBV_SEND_SOLICITED;
    /** Copy the data into the work request: the buffer needs no registration and is reusable on return. */
    public static final int INLINE = verbs_h.IBV_SEND_INLINE;

    static final int ALL = FENCE | SIGNALED | SOLICITED | INLINE;
}
