package org.panamardma.verbs.cm;

import org.panamardma.verbs.Errno;
import org.panamardma.verbs.RdmaException;

/**
 * An rdma_cm step did not end as expected: another event came instead (REJECTED, UNREACHABLE, ADDR_ERROR...), or
 * the expected one came with an error status. {@link #event()} is what came, with its status and private data.
 */
public class CmEventException extends RdmaException {
    private static final long serialVersionUID = 1L;

    private final transient CmEvent event;
    /** The event type that was awaited. */
    private final CmEventType expected;

    /**
     * The event {@code event} came where {@code expected} was awaited.
     *
     * @param expected the event type awaited
     * @param event    the event that came instead, or the expected one with a non-zero status
     */
    public CmEventException(CmEventType expected, CmEvent event) {
        super("expected " + expected.cName() + " but got " + event);
        this.event = event;
        this.expected = expected;
    }

    /** {@return the event that came instead of the expected one (its status and private data say why)} */
    public CmEvent event() {
        return event;
    }

    /** {@return the event type that was awaited} */
    public CmEventType expected() {
        return expected;
    }

    /** The positive errno of a negative event status, else 0. */
    @Override
    public int errno() {
        return event.status() < 0 ? -event.status() : 0;
    }

    @Override
    public String errnoName() {
        return Errno.name(errno());
    }
}
