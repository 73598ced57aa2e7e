package org.panamardma.verbs;

/**
 * A post whose requests the provider put on the send queue, but whose doorbell, the command that tells the kernel
 * to carry them out, the kernel refused. rxe and siw ring it with a {@code write()} to the device's file, and the
 * kernel refuses that from a thread whose credentials are not the very ones the file was opened with (include/rdma/ib.h,
 * {@code ib_safe_file_access}): one that changed its file-system ids, groups or capabilities, even back, or was
 * started by such a thread. The requests were not carried out, but they are on the send queue: rxe carries them out
 * at the next doorbell rung from another thread, and siw's queue then looks busy to every later post, so it rings
 * none and the queue pair sends nothing more. So whether and when they complete is out of the poster's hands: end the
 * queue pair (move it to the error state, which flushes them), from a thread that kept its credentials.
 * {@link org.panamardma.verbs.connection.RdmaConnection} does so itself.
 */
public final class DoorbellRefusedException extends RdmaException {
    private static final long serialVersionUID = 1L;

    /** @param operation the verb, the QP and the reason (SendPath's wording); {@code errno} 0 for siw's -1 */
    DoorbellRefusedException(String operation, int errno) {
        super(operation, errno);
    }
}
