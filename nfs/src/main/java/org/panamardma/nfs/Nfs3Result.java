package org.panamardma.nfs;

import java.util.Objects;

/**
 * The results of an NFSv3 procedure: the status, and the procedure's {@code resok} body when it is NFS3_OK. The
 * {@code resfail} bodies (mostly {@code post_op_attr} or {@code wcc_data}) are decoded, so the reply is checked
 * through to its end, but not kept.
 *
 * @param <T> the results type
 * @param status the status
 * @param value the results when {@code status} is NFS3_OK, else {@code null}
 */
public record Nfs3Result<T>(NfsStat3 status, T value) {
    /**
     * Checks that results are there exactly when the status is NFS3_OK.
     *
     * @throws IllegalArgumentException if they are not
     */
    public Nfs3Result {
        Objects.requireNonNull(status, "status");
        if ((status == NfsStat3.NFS3_OK) != (value != null)) {
            throw new IllegalArgumentException("NFS3_OK needs results and only NFS3_OK has them: " + status);
        }
    }

    /**
     * The results, or the status as an exception.
     *
     * @param operation names the call in the exception
     * @return the results
     * @throws NfsException if the status is not NFS3_OK
     */
    public T orThrow(String operation) throws NfsException {
        if (status != NfsStat3.NFS3_OK) {
            throw new NfsException(status, operation);
        }
        return value;
    }
}
