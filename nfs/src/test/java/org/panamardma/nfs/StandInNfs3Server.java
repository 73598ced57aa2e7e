package org.panamardma.nfs;

import java.lang.foreign.MemorySegment;
import java.util.List;
import org.panamardma.oncrpc.AuthSysParms;
import org.panamardma.oncrpc.RpcDispatcher;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncodable;

/**
 * A stand-in NFSv3 server: NULL, GETATTR, READ (data DDP-eligible), WRITE, READDIR and FSINFO over one file and one
 * directory of {@value #ENTRIES} entries, as an {@link RpcDispatcher} any transport can serve (TCP in
 * {@link Nfs3ClientOverTcpTest}, RPC-over-RDMA in {@link NfsOverJavaRdmaServerDeviceTests}).
 */
final class StandInNfs3Server {
    static final FileHandle3 FILE = new FileHandle3(new byte[] {'f', 'i', 'l', 'e'});
    static final FileHandle3 DIR = new FileHandle3(new byte[] {'d', 'i', 'r'});
    static final int ENTRIES = 50;
    /** The limits it reports unless told otherwise: 1 MiB READs and WRITEs, 64 KiB preferred. */
    static final FsInfo LIMITS = limits(1 << 20, 64 << 10, 1 << 20, 64 << 10);

    /** An FSINFO answer with these sizes, the other fields recognizable values. */
    static FsInfo limits(long rtmax, long rtpref, long wtmax, long wtpref) {
        return new FsInfo(
                null,
                rtmax,
                rtpref,
                4096,
                wtmax,
                wtpref,
                4096,
                8192,
                Long.MAX_VALUE,
                new NfsTime3(0, 1),
                FsInfo.FSF3_LINK | FsInfo.FSF3_SYMLINK | FsInfo.FSF3_HOMOGENEOUS | FsInfo.FSF3_CANSETTIME);
    }

    private StandInNfs3Server() {}

    private static XdrEncodable fattr(long size) {
        return out -> new Fattr3(
                        FileType3.NF3REG,
                        0644,
                        1,
                        0,
                        0,
                        size,
                        size,
                        0,
                        0,
                        1,
                        2,
                        new NfsTime3(1, 0),
                        new NfsTime3(2, 0),
                        new NfsTime3(3, 0))
                .encodeTo(out);
    }

    private record ReadArgs(FileHandle3 fh, long offset, int count) {}

    private record WriteArgs(FileHandle3 fh, long offset, int stable, byte[] data) {}

    private record DirArgs(FileHandle3 fh, long cookie, int count) {}

    /** The dispatcher over {@code content} (READ from it, WRITE into it), recording each GETATTR's credential. */
    static RpcDispatcher dispatcher(byte[] content, List<AuthSysParms> credentials) {
        return dispatcher(content, credentials, LIMITS, Integer.MAX_VALUE, new java.util.ArrayList<>());
    }

    /**
     * @param limits what FSINFO answers
     * @param writeCap the most bytes one WRITE stores (and reports), to act as a server that writes less than given
     * @param log gets "FSINFO", "READ count@offset" and "WRITE count@offset" (the count asked for or carried)
     */
    static RpcDispatcher dispatcher(
            byte[] content, List<AuthSysParms> credentials, FsInfo limits, int writeCap, List<String> log) {
        return RpcDispatcher.builder()
                .register(Nfs3.PROGRAM, 3, Nfs3.PROC_FSINFO, FileHandle3::decode, (fh, call) -> {
                    log.add("FSINFO");
                    return out -> {
                        out.putInt(0);
                        limits.encodeTo(out);
                    };
                })
                .register(Nfs3.PROGRAM, 3, Nfs3.PROC_NULL, in -> Boolean.TRUE, (a, call) -> XdrEncodable.VOID)
                .register(Nfs3.PROGRAM, 3, Nfs3.PROC_GETATTR, FileHandle3::decode, (fh, call) -> {
                    credentials.add(AuthSysParms.from(call.credential()));
                    return out -> {
                        out.putInt(0);
                        fattr(content.length).encodeTo(out);
                    };
                })
                .register(
                        Nfs3.PROGRAM,
                        3,
                        Nfs3.PROC_READ,
                        in -> new ReadArgs(FileHandle3.decode(in), in.getHyper(), in.getInt()),
                        (a, call) -> {
                            log.add("READ " + a.count() + "@" + a.offset());
                            return out -> {
                                int n = (int) Math.max(0, Math.min(a.count(), content.length - a.offset()));
                                out.putInt(0).putBoolean(false).putInt(n).putBoolean(a.offset() + n >= content.length);
                                out.putEligibleOpaque(
                                        MemorySegment.ofArray(content).asSlice(a.offset(), n), n);
                            };
                        })
                .register(
                        Nfs3.PROGRAM,
                        3,
                        Nfs3.PROC_WRITE,
                        in -> new WriteArgs(
                                FileHandle3.decode(in), in.getHyper(), skipCount(in), in.getOpaqueBytes(1 << 20)),
                        (a, call) -> {
                            log.add("WRITE " + a.data().length + "@" + a.offset());
                            int n = Math.min(a.data().length, writeCap);
                            System.arraycopy(a.data(), 0, content, (int) a.offset(), n);
                            return out -> out.putInt(0)
                                    .putBoolean(false)
                                    .putBoolean(false)
                                    .putInt(n)
                                    .putInt(a.stable())
                                    .putHyper(0x1234);
                        })
                .register(
                        Nfs3.PROGRAM,
                        3,
                        Nfs3.PROC_READDIR,
                        in -> new DirArgs(FileHandle3.decode(in), in.getHyper(), skipVerifierThenCount(in)),
                        (a, call) -> out -> {
                            out.putInt(0).putBoolean(false).putHyper(99);
                            long next = a.cookie();
                            for (int i = 0; i < 20 && next < ENTRIES; i++, next++) { // 20 per batch
                                out.putBoolean(true)
                                        .putHyper(1000 + next)
                                        .putString("e" + next, 255)
                                        .putHyper(next + 1);
                            }
                            out.putBoolean(false).putBoolean(next == ENTRIES);
                        })
                .build();
    }

    static int skipCount(XdrDecoder in) {
        in.getInt(); // count, repeated by the opaque's length
        return in.getInt();
    }

    static int skipVerifierThenCount(XdrDecoder in) {
        in.getHyper();
        return in.getInt();
    }
}
