package org.panamardma.verbs;

/**
 * The provider refused a request of a {@link SendChain} ({@link QueuePair#postChain}): {@link #postedRequests()} of
 * the chain, its first ones in order, went to the send queue and will complete (or be flushed) as usual; the refused
 * one, request {@link #postedRequests()}, and every one after it were not posted (ibv_post_send(3): it "stops
 * processing WRs from this list at the first failure" and returns that one as {@code bad_wr}; an {@code ibv_wr_*}
 * region that {@code ibv_wr_complete} refuses is posted not at all: rxe's and mlx5's advance the producer index only
 * when nothing failed).
 */
public final class ChainPostException extends RdmaException {
    private static final long serialVersionUID = 1L;

    /** How many requests, from the first, reached the send queue. */
    private final int postedRequests;
    /** How many requests the chain had. */
    private final int chainLength;

    /** @param operation the verb and the QP, with the reason's hint (SendPath.postFailure's wording) */
    ChainPostException(String operation, int errno, int postedRequests, int chainLength) {
        super(
                operation + " (a chain of " + chainLength + ": request " + postedRequests + " refused, "
                        + (postedRequests == 0 ? "none" : "the " + postedRequests + " before it")
                        + " posted, none after it)",
                errno);
        this.postedRequests = postedRequests;
        this.chainLength = chainLength;
    }

    /** {@return how many of the chain's first requests were posted: the index of the refused one} */
    public int postedRequests() {
        return postedRequests;
    }

    /** {@return how many requests the chain had} */
    public int chainLength() {
        return chainLength;
    }
}
