package org.panamardma.nfs;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.panamardma.nfs.rpc.ReplyPlacement;
import org.panamardma.nfs.rpc.ReplyReader;
import org.panamardma.nfs.rpc.RpcTransport;
import org.panamardma.oncrpc.AuthSysParms;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncodable;

/**
 * A small NFS version 3 client (RFC 1813) over any {@link RpcTransport}: every procedure (NULL, GETATTR, SETATTR,
 * LOOKUP, ACCESS, READLINK, READ, WRITE, CREATE, MKDIR, SYMLINK, MKNOD, REMOVE, RMDIR, RENAME, LINK, READDIR,
 * READDIRPLUS, FSSTAT, FSINFO, PATHCONF, COMMIT). Get the root handle from the MOUNT protocol ({@link MountClient}).
 *
 * <p>Each method is one RPC, except {@link #readFully}/{@link #writeFully} (a call per part); an error status from
 * the server is an {@link NfsException}, an RPC or transport failure another {@link IOException}. No retries (see
 * {@link org.panamardma.oncrpc.tcp.TcpRpcClient}). Thread-safe as the transport is.
 *
 * <h2>The server's limits</h2>
 * READs and WRITEs keep to the server's FSINFO limits (RFC 1813 section 3.3.19), as Linux's client does: a READ never
 * asks for more than {@code rtmax}, and a {@link #write} of more than {@code wtmax} bytes is refused before anything
 * is sent ({@link #writeFully} splits instead). This is not politeness: over RPC-over-RDMA Linux's knfsd pulls an
 * oversized WRITE's Read chunk into memory it never allocated (its 6.12 kernel oopsed in this project's testbed).
 * The client learns the limits by itself, lazily: the first READ or WRITE sends one FSINFO for its file's handle and
 * the answer holds for the client's lifetime (one lock, so concurrent first calls send one FSINFO). Lazily rather
 * than by an explicit step the user must remember, because forgetting it must not be able to crash a server; an
 * application may still call {@link #fsinfo} at mount time to learn them up front. The limits are per client, not per
 * file system: connect a client per server (knfsd's limits are the transport's, the same for all its exports).
 */
public final class Nfs3Client extends Nfs3FileCalls {
    /**
     * A client making every call with {@code credential} and {@code timeout}. It does not own the transport: closing it
     * is the caller's.
     *
     * @param transport connected to the server's NFS service (port 2049 over TCP, 20049 over RDMA)
     * @param credential the credential of every call (AUTH_SYS, see {@link #authSys})
     * @param timeout the timeout of every call
     */
    public Nfs3Client(RpcTransport transport, OpaqueAuth credential, Duration timeout) {
        super(transport, credential, timeout);
    }

    /**
     * An AUTH_SYS credential (RFC 5531 section 10.2) for {@code uid}/{@code gid}, no supplementary groups.
     *
     * @param machineName the caller's host name, at most 255 bytes
     * @param uid the user id the server checks permissions against (0 is usually squashed to nobody)
     * @param gid the primary group id
     * @return the credential, its stamp taken from the clock
     * @throws IllegalArgumentException if {@code machineName} is longer than 255 bytes
     */
    public static OpaqueAuth authSys(String machineName, int uid, int gid) {
        return new AuthSysParms((int) (System.nanoTime() >>> 10), machineName, uid, gid, List.of()).toOpaqueAuth();
    }

    /**
     * NULL (procedure 0): does nothing, proves the server answers (RFC 1813 section 3.3.0).
     *
     * @throws IOException an {@code RpcException} when the call fails in RPC or in the transport (NULL has no NFS
     *        status)
     * @throws InterruptedException if interrupted while waiting for the reply
     */
    public void ping() throws IOException, InterruptedException {
        call(Nfs3.PROC_NULL, XdrEncodable.VOID, ReplyReader.of(in -> Boolean.TRUE));
    }

    /**
     * LOOKUP of one name in a directory (RFC 1813 section 3.3.3).
     *
     * @param directory the directory's handle
     * @param name one path component, sent as UTF-8; not {@code .}-expanded or split at {@code /} by this client
     * @return the handle and, when the server sent them, the attributes of the file and the directory
     * @throws IOException an {@link NfsException} for an error status of the server, another {@link IOException} (an
     *        {@code RpcException}) when the call fails in RPC or in the transport
     * @throws InterruptedException if interrupted while waiting for the reply
     */
    public LookupResult lookup(FileHandle3 directory, String name) throws IOException, InterruptedException {
        return call(Nfs3.PROC_LOOKUP, Nfs3Xdr.lookup(directory, name), ReplyReader.of(Nfs3ResultsXdr::lookupResults))
                .orThrow("LOOKUP " + name);
    }

    /**
     * CREATE (RFC 1813 section 3.3.8) of a regular file.
     *
     * @param directory the directory to create in
     * @param name the new name, sent as UTF-8
     * @param mode {@link Nfs3#CREATE_UNCHECKED}, {@link Nfs3#CREATE_GUARDED} or {@link Nfs3#CREATE_EXCLUSIVE}
     * @param attributes the attributes (UNCHECKED, GUARDED)
     * @param verifier the create verifier (EXCLUSIVE)
     * @return the new file's handle and attributes, and the directory's before and after
     * @throws IOException an {@link NfsException} for an error status of the server, another {@link IOException} (an
     *        {@code RpcException}) when the call fails in RPC or in the transport
     * @throws InterruptedException if interrupted while waiting for the reply
     */
    public DirOpResult create(FileHandle3 directory, String name, int mode, Sattr3 attributes, long verifier)
            throws IOException, InterruptedException {
        return call(
                        Nfs3.PROC_CREATE,
                        Nfs3Xdr.create(directory, name, mode, attributes, verifier),
                        ReplyReader.of(Nfs3ResultsXdr::dirOpResults))
                .orThrow("CREATE " + name);
    }

    /**
     * CREATE, UNCHECKED, with mode {@code mode}.
     *
     * @param directory the directory to create in
     * @param name the new name, sent as UTF-8
     * @param mode the permission bits of the new file, such as {@code 0644}
     * @return the new file's handle and attributes, and the directory's before and after
     * @throws IOException an {@link NfsException} for an error status of the server, another {@link IOException} (an
     *        {@code RpcException}) when the call fails in RPC or in the transport
     * @throws InterruptedException if interrupted while waiting for the reply
     */
    public DirOpResult create(FileHandle3 directory, String name, int mode) throws IOException, InterruptedException {
        return create(directory, name, Nfs3.CREATE_UNCHECKED, Sattr3.mode(mode), 0);
    }

    /**
     * MKDIR (RFC 1813 section 3.3.9).
     *
     * @param directory the directory to create in
     * @param name the new directory's name, sent as UTF-8
     * @param attributes its initial attributes (typically a mode)
     * @return the new directory's handle and attributes, and the parent's before and after
     * @throws IOException an {@link NfsException} for an error status of the server, another {@link IOException} (an
     *        {@code RpcException}) when the call fails in RPC or in the transport
     * @throws InterruptedException if interrupted while waiting for the reply
     */
    public DirOpResult mkdir(FileHandle3 directory, String name, Sattr3 attributes)
            throws IOException, InterruptedException {
        return call(
                        Nfs3.PROC_MKDIR,
                        Nfs3Xdr.mkdir(directory, name, attributes),
                        ReplyReader.of(Nfs3ResultsXdr::dirOpResults))
                .orThrow("MKDIR " + name);
    }

    /**
     * SYMLINK (RFC 1813 section 3.3.10).
     *
     * @param directory the directory to create in
     * @param name the link's name, sent as UTF-8
     * @param target what the link points to, sent as UTF-8; the server does not check it
     * @return the link's handle and attributes, and the directory's before and after
     * @throws IOException an {@link NfsException} for an error status of the server, another {@link IOException} (an
     *        {@code RpcException}) when the call fails in RPC or in the transport
     * @throws InterruptedException if interrupted while waiting for the reply
     */
    public DirOpResult symlink(FileHandle3 directory, String name, String target)
            throws IOException, InterruptedException {
        return call(
                        Nfs3.PROC_SYMLINK,
                        Nfs3Xdr.symlink(directory, name, Sattr3.NONE, target),
                        ReplyReader.of(Nfs3ResultsXdr::dirOpResults))
                .orThrow("SYMLINK " + name);
    }

    /**
     * MKNOD (RFC 1813 section 3.3.11); {@code major}/{@code minor} only count for devices.
     *
     * @param directory the directory to create in
     * @param name the new name, sent as UTF-8
     * @param type NF3CHR, NF3BLK, NF3SOCK or NF3FIFO
     * @param attributes its initial attributes
     * @param major the device's major number (NF3CHR, NF3BLK)
     * @param minor the device's minor number (NF3CHR, NF3BLK)
     * @return the new object's handle and attributes, and the directory's before and after
     * @throws IOException an {@link NfsException} for an error status of the server, another {@link IOException} (an
     *        {@code RpcException}) when the call fails in RPC or in the transport
     * @throws InterruptedException if interrupted while waiting for the reply
     */
    public DirOpResult mknod(
            FileHandle3 directory, String name, FileType3 type, Sattr3 attributes, int major, int minor)
            throws IOException, InterruptedException {
        return call(
                        Nfs3.PROC_MKNOD,
                        Nfs3Xdr.mknod(directory, name, type, attributes, major, minor),
                        ReplyReader.of(Nfs3ResultsXdr::dirOpResults))
                .orThrow("MKNOD " + name);
    }

    /**
     * REMOVE (RFC 1813 section 3.3.12).
     *
     * @param directory the directory holding the name
     * @param name the name to remove, sent as UTF-8
     * @return the directory's attributes before and after
     * @throws IOException an {@link NfsException} for an error status of the server, another {@link IOException} (an
     *        {@code RpcException}) when the call fails in RPC or in the transport
     * @throws InterruptedException if interrupted while waiting for the reply
     */
    public WccData remove(FileHandle3 directory, String name) throws IOException, InterruptedException {
        return call(Nfs3.PROC_REMOVE, Nfs3Args.DirOp.utf8(directory, name), ReplyReader.of(Nfs3ResultsXdr::wccResults))
                .orThrow("REMOVE " + name);
    }

    /**
     * RMDIR (RFC 1813 section 3.3.13).
     *
     * @param directory the parent directory
     * @param name the empty directory's name, sent as UTF-8
     * @return the parent's attributes before and after
     * @throws IOException an {@link NfsException} for an error status of the server, another {@link IOException} (an
     *        {@code RpcException}) when the call fails in RPC or in the transport
     * @throws InterruptedException if interrupted while waiting for the reply
     */
    public WccData rmdir(FileHandle3 directory, String name) throws IOException, InterruptedException {
        return call(Nfs3.PROC_RMDIR, Nfs3Args.DirOp.utf8(directory, name), ReplyReader.of(Nfs3ResultsXdr::wccResults))
                .orThrow("RMDIR " + name);
    }

    /**
     * RENAME (RFC 1813 section 3.3.14).
     *
     * @param fromDirectory the directory holding the name now
     * @param fromName the name now, sent as UTF-8
     * @param toDirectory the directory to move it to, in the same file system
     * @param toName the new name, sent as UTF-8; an existing file of that name is replaced
     * @return both directories' attributes before and after
     * @throws IOException an {@link NfsException} for an error status of the server, another {@link IOException} (an
     *        {@code RpcException}) when the call fails in RPC or in the transport
     * @throws InterruptedException if interrupted while waiting for the reply
     */
    public RenameResult rename(FileHandle3 fromDirectory, String fromName, FileHandle3 toDirectory, String toName)
            throws IOException, InterruptedException {
        return call(
                        Nfs3.PROC_RENAME,
                        Nfs3Xdr.rename(fromDirectory, fromName, toDirectory, toName),
                        ReplyReader.of(Nfs3ResultsXdr::renameResults))
                .orThrow("RENAME " + fromName + " " + toName);
    }

    /**
     * LINK (RFC 1813 section 3.3.15).
     *
     * @param file the existing file
     * @param directory the directory for the new name
     * @param name the new name, sent as UTF-8
     * @return the file's attributes and the directory's before and after
     * @throws IOException an {@link NfsException} for an error status of the server, another {@link IOException} (an
     *        {@code RpcException}) when the call fails in RPC or in the transport
     * @throws InterruptedException if interrupted while waiting for the reply
     */
    public LinkResult link(FileHandle3 file, FileHandle3 directory, String name)
            throws IOException, InterruptedException {
        return call(Nfs3.PROC_LINK, Nfs3Xdr.link(file, directory, name), ReplyReader.of(Nfs3ResultsXdr::linkResults))
                .orThrow("LINK " + name);
    }

    /**
     * One READDIR (RFC 1813 section 3.3.16): cookie 0 and verifier 0 start at the beginning.
     *
     * @param directory the directory's handle
     * @param cookie 0, or the cookie of the last entry of the previous batch
     * @param cookieVerifier 0, or the verifier of the previous batch
     * @param count the most bytes of READDIR results the server may send
     * @return one batch of entries, with {@code eof} once the listing is complete
     * @throws IOException an {@link NfsException} for an error status of the server, another {@link IOException} (an
     *        {@code RpcException}) when the call fails in RPC or in the transport
     * @throws InterruptedException if interrupted while waiting for the reply
     */
    public DirList3 readdir(FileHandle3 directory, long cookie, long cookieVerifier, int count)
            throws IOException, InterruptedException {
        ReplyReader<Nfs3Result<DirList3>> results = new ReplyReader<>() {
            @Override
            public Nfs3Result<DirList3> read(XdrDecoder in, ReplyPlacement placement) {
                return Nfs3ResultsXdr.readdirResults(in);
            }

            @Override
            public long maxResultsSize() {
                return 4L + count; // the status, then at most count bytes of READDIR3resok (RFC 1813 3.3.16)
            }
        };
        return call(Nfs3.PROC_READDIR, Nfs3Xdr.readdir(directory, cookie, cookieVerifier, count), results)
                .orThrow("READDIR " + directory);
    }

    /**
     * One READDIRPLUS (RFC 1813 section 3.3.17).
     *
     * @param directory the directory's handle
     * @param cookie 0, or the cookie of the last entry of the previous batch
     * @param cookieVerifier 0, or the verifier of the previous batch
     * @param dirCount the most bytes of directory information (names and cookies) in the results
     * @param maxCount the most bytes of READDIRPLUS results in all, attributes and handles included
     * @return one batch of entries, with attributes and handles, and {@code eof} once the listing is complete
     * @throws IOException an {@link NfsException} for an error status of the server, another {@link IOException} (an
     *        {@code RpcException}) when the call fails in RPC or in the transport
     * @throws InterruptedException if interrupted while waiting for the reply
     */
    public DirList3 readdirplus(FileHandle3 directory, long cookie, long cookieVerifier, int dirCount, int maxCount)
            throws IOException, InterruptedException {
        ReplyReader<Nfs3Result<DirList3>> results = new ReplyReader<>() {
            @Override
            public Nfs3Result<DirList3> read(XdrDecoder in, ReplyPlacement placement) {
                return Nfs3ResultsXdr.readdirplusResults(in);
            }

            @Override
            public long maxResultsSize() {
                return 4L + maxCount;
            }
        };
        return call(
                        Nfs3.PROC_READDIRPLUS,
                        Nfs3Xdr.readdirplus(directory, cookie, cookieVerifier, dirCount, maxCount),
                        results)
                .orThrow("READDIRPLUS " + directory);
    }

    /**
     * Lists a whole directory with READDIR (or READDIRPLUS), batch after batch, each resuming at the last entry's
     * cookie with the verifier of the previous batch (RFC 1813 section 3.3.16).
     *
     * @param directory the directory's handle
     * @param count the {@code count} (READDIR) or {@code maxcount} (READDIRPLUS) of each call
     * @param plus true for READDIRPLUS (entries with attributes and handles), false for READDIR
     * @return every entry, in the server's order ({@code .} and {@code ..} included, as the server sends them)
     * @throws IOException an {@link NfsException} for an error status of the server, another {@link IOException} (an
     *        {@code RpcException}) when the call fails in RPC or in the transport
     * @throws InterruptedException if interrupted while waiting for the reply
     */
    public List<DirEntry3> listDirectory(FileHandle3 directory, int count, boolean plus)
            throws IOException, InterruptedException {
        List<DirEntry3> all = new ArrayList<>();
        long cookie = 0;
        long verifier = 0;
        while (true) {
            DirList3 batch = plus
                    ? readdirplus(directory, cookie, verifier, count, count)
                    : readdir(directory, cookie, verifier, count);
            all.addAll(batch.entries());
            if (batch.eof()) {
                return all;
            }
            if (batch.entries().isEmpty()) {
                throw new IOException("READDIR of " + directory + " returned no entries and no eof: count " + count
                        + " too small for one entry?");
            }
            cookie = batch.entries().getLast().cookie();
            verifier = batch.cookieVerifier();
        }
    }
}
