package org.panamardma.nfs.server;

import org.panamardma.nfs.FileHandle3;

/**
 * A call's file handle, resolved in its prelude: by its thread as the server, before the thread takes on the caller
 * ({@link CallerThreads#run(Caller, java.time.Duration, java.time.Duration, CallerThreads.Op, CallerThreads.Op,
 * Runnable)}), and taken by the procedure's own {@link ExportFs#resolve} of the same handle. So a call switches its
 * thread's identity once each way instead of three times (the resolution is the server's work, done from inside
 * the caller's identity before: {@link CallerThreads#asServer}); knfsd likewise finds the file ({@code fh_verify})
 * before it takes on the caller ({@code nfsd_setuser}).
 *
 * <p>A handle that does not resolve is kept with its error, so that a client sending bad handles makes the server
 * search no more than before.
 */
final class Preresolved {
    private Preresolved() {}

    /** How the export resolves a handle. */
    @FunctionalInterface
    interface Resolver {
        ExportFs.Node resolve(FileHandle3 fh) throws NfsError;
    }

    /** What a resolution is taken by: this export, this handle. */
    private record Key(ExportFs fs, FileHandle3 fh) {}

    /** A resolution that failed, and how. */
    private record Unresolvable(NfsError error) implements AutoCloseable {
        @Override
        public void close() {}
    }

    /** In the prelude, as the server: resolves {@code fh} of {@code fs}. */
    static CallerThreads.Prepared prepare(ExportFs fs, FileHandle3 fh, Resolver resolver) {
        AutoCloseable value;
        try {
            value = resolver.resolve(fh);
        } catch (NfsError e) {
            value = new Unresolvable(e);
        }
        return new CallerThreads.Prepared(new Key(fs, fh), value);
    }

    /**
     * In the procedure: the prelude's resolution of {@code fh} of {@code fs}, the caller's to close; null if the
     * prelude resolved no such handle (or this is not a procedure's thread).
     *
     * @throws NfsError how the prelude's resolution failed
     */
    static ExportFs.Node take(ExportFs fs, FileHandle3 fh) throws NfsError {
        AutoCloseable prepared = CallerThreads.takePrepared(new Key(fs, fh));
        if (prepared instanceof Unresolvable u) {
            throw u.error();
        }
        return (ExportFs.Node) prepared;
    }
}
