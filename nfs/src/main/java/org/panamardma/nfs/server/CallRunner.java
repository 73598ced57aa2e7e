package org.panamardma.nfs.server;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import org.panamardma.nfs.NfsStat3;
import org.panamardma.oncrpc.RpcCall;
import org.panamardma.xdr.XdrEncodable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How one NFS call runs, between its transport's thread and its procedure: the export's checks of the client
 * ({@link ExportGate.Client}: a port above 1023 under {@code secure} is NFS3ERR_PERM, as knfsd's
 * {@code nfsd_setuser_and_check_port}), the caller it acts as ({@link Squashing}), the data buffer it needs (taken
 * here, on the transport's thread, so that no procedure thread ever waits for one), the procedure itself on a
 * {@link CallerThreads} thread acting as the caller, and the status a failure is answered with: NFS3ERR_JUKEBOX for
 * every wait that reached its deadline, the {@code nfsstat3} of an {@link NfsError} or a failed system call.
 */
final class CallRunner {
    private static final Logger LOG = LoggerFactory.getLogger(CallRunner.class);

    /**
     * How long a call waits for what the server has a fixed number of, before it is answered NFS3ERR_JUKEBOX (the
     * client tries again later): a thread to run on, a buffer for its data; and how long its transport waits for a
     * procedure that runs (a file system that hangs) before giving it up.
     *
     * @param resource the longest wait for a thread or a buffer
     * @param running the longest wait for a running procedure
     */
    record Waits(Duration resource, Duration running) {}

    /** A procedure's body, run as its caller. */
    @FunctionalInterface
    interface Body<A> {
        XdrEncodable run(A args, Caller caller) throws NfsError, PosixException, InterruptedException;
    }

    private final IoBuffers buffers;
    private final CallerThreads threads;
    private final Squashing squashing;
    private final Waits waits;
    private final RateLimitedLog refusals;

    CallRunner(IoBuffers buffers, CallerThreads threads, Squashing squashing, Waits waits, RateLimitedLog refusals) {
        this.buffers = buffers;
        this.threads = threads;
        this.squashing = squashing;
        this.waits = waits;
        this.refusals = refusals;
    }

    /**
     * Runs procedure {@code number} with its decoded {@code args}, on the transport's thread.
     *
     * @param bufferBytes the data buffer the procedure needs ({@link CallScope#lease()}), 0 for none
     * @param prelude what the procedure's thread does with the arguments as the server before it takes on the
     *     caller ({@link CallerThreads#run(Caller, Duration, Duration, CallerThreads.Op, CallerThreads.Op, Runnable)}),
     *     or null
     * @param failure the results of a failure with a status (the procedure's {@code resfail} arm)
     */
    <A> XdrEncodable run(
            int number,
            A args,
            RpcCall call,
            ToLongFunction<A> bufferBytes,
            Function<A, CallerThreads.Op<CallerThreads.Prepared>> prelude,
            Body<A> body,
            Function<NfsStat3, XdrEncodable> failure) {
        Optional<ExportGate.Client> client = ExportGate.current();
        if (client.isEmpty()) {
            return failure.apply(NfsStat3.NFS3ERR_PERM); // not behind the export's gate: no client list to apply
        }
        if (!client.get().portAllowed()) {
            refusals.warn(() -> "NFS: refused a call from " + client.get().describe()
                    + ": not a reserved port, and the export is secure (insecure lifts it)");
            return failure.apply(NfsStat3.NFS3ERR_PERM);
        }
        Caller caller = squashing.map(call, client.get().options());
        long need = bufferBytes.applyAsLong(args);
        IoBuffers.Lease lease;
        try {
            // a client's share of the buffers is by address: it cannot take more by opening connections
            lease = need <= 0
                    ? null
                    : buffers.take(
                            need,
                            client.get()
                                    .address()
                                    .<Object>map(a -> a.getAddress())
                                    .orElse("unknown"),
                            waits.resource());
        } catch (IoBuffers.Exhausted e) {
            LOG.debug("procedure " + number + " answered JUKEBOX: " + e.getMessage());
            return failure.apply(NfsStat3.NFS3ERR_JUKEBOX);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return failure.apply(NfsStat3.NFS3ERR_JUKEBOX);
        }
        CallScope scope = new CallScope(lease);
        boolean released = false;
        try {
            XdrEncodable results = threads.run(
                    caller,
                    waits.resource(),
                    waits.running(),
                    prelude == null ? null : prelude.apply(args),
                    () -> scope.during(() -> body.run(args, caller)),
                    scope::release);
            scope.handOver();
            released = true;
            return results;
        } catch (CallerThreads.Busy e) {
            // an abandoned call's thread releases its scope when the procedure is over, not now
            released = e.abandoned();
            LOG.debug("procedure " + number + " answered JUKEBOX: " + e.getMessage());
            return failure.apply(NfsStat3.NFS3ERR_JUKEBOX);
        } catch (NfsError e) {
            return failure.apply(e.status());
        } catch (PosixException e) {
            return failure.apply(e.status());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return failure.apply(NfsStat3.NFS3ERR_JUKEBOX);
        } catch (Exception e) {
            LOG.error("procedure " + number + " failed", e);
            return failure.apply(NfsStat3.NFS3ERR_SERVERFAULT);
        } finally {
            if (!released) {
                scope.release();
            }
        }
    }
}
