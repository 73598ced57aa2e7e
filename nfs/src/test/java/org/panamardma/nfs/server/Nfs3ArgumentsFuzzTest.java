package org.panamardma.nfs.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;
import org.panamardma.nfs.FileHandle3;
import org.panamardma.nfs.Nfs3;
import org.panamardma.nfs.Nfs3Args;
import org.panamardma.testing.AllocationBudget;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncodable;
import org.panamardma.xdr.XdrEncoder;
import org.panamardma.xdr.XdrException;
import org.panamardma.xdr.XdrReader;

/**
 * Fuzzes the NFS server's argument decoders (nfs/FUZZING.md), the readers it registers per procedure
 * ({@link Nfs3Server#register}): byte 0 picks the procedure, the rest is its arguments. The typed refusal is
 * {@link XdrException} (the dispatcher answers GARBAGE_ARGS); anything else is a finding. What decodes must keep
 * the server's limits (a handle of at most 64 bytes, names and link targets of at most 4096 bytes, WRITE data a
 * view of the call, never a copy, and the buffers READ and WRITE ask for at most rtmax/wtmax) and re-encode to the
 * bytes it was read from by the records' own encoding, the one the client sends (XDR is canonical; padding must be
 * zero): so the client's encoder and the server's decoder, one record set ({@link Nfs3Args}), agree.
 */
class Nfs3ArgumentsFuzzTest {
    /** The procedures with arguments, in the order byte 0 picks them (NfsFuzzSeeds writes its seeds by it). */
    static final List<Integer> PROCEDURES = List.of(
            Nfs3.PROC_GETATTR,
            Nfs3.PROC_SETATTR,
            Nfs3.PROC_LOOKUP,
            Nfs3.PROC_ACCESS,
            Nfs3.PROC_READLINK,
            Nfs3.PROC_READ,
            Nfs3.PROC_WRITE,
            Nfs3.PROC_CREATE,
            Nfs3.PROC_MKDIR,
            Nfs3.PROC_SYMLINK,
            Nfs3.PROC_MKNOD,
            Nfs3.PROC_REMOVE,
            Nfs3.PROC_RMDIR,
            Nfs3.PROC_RENAME,
            Nfs3.PROC_LINK,
            Nfs3.PROC_READDIR,
            Nfs3.PROC_READDIRPLUS,
            Nfs3.PROC_FSSTAT,
            Nfs3.PROC_FSINFO,
            Nfs3.PROC_PATHCONF,
            Nfs3.PROC_COMMIT);

    /**
     * A decode copies a handle (at most 64 bytes) and names or a link target (at most 4096 bytes each, copied to a
     * byte array and then to a Latin-1 string: 2 bytes per input byte), and builds a few records; WRITE data is a
     * slice. The bound allows 16 per input byte on top of 64 KiB for the refusal's exception (stack trace, message).
     */
    private static long bound(int inputLength) {
        return (64 << 10) + 16L * inputLength;
    }

    static XdrReader<?> reader(int procedure) {
        return switch (procedure) {
            case Nfs3.PROC_GETATTR, Nfs3.PROC_READLINK, Nfs3.PROC_FSSTAT, Nfs3.PROC_FSINFO, Nfs3.PROC_PATHCONF ->
                FileHandle3::decode;
            case Nfs3.PROC_SETATTR -> Nfs3Args.SetattrArgs::decode;
            case Nfs3.PROC_LOOKUP, Nfs3.PROC_REMOVE, Nfs3.PROC_RMDIR -> Nfs3Args.DirOp::decode;
            case Nfs3.PROC_ACCESS -> Nfs3Args.AccessArgs::decode;
            case Nfs3.PROC_READ -> Nfs3Args.ReadArgs::decode;
            case Nfs3.PROC_WRITE -> Nfs3Args.WriteArgs::decode;
            case Nfs3.PROC_CREATE -> Nfs3Args.CreateArgs::decode;
            case Nfs3.PROC_MKDIR -> Nfs3Args.MkdirArgs::decode;
            case Nfs3.PROC_SYMLINK -> Nfs3Args.SymlinkArgs::decode;
            case Nfs3.PROC_MKNOD -> Nfs3Args.MknodArgs::decode;
            case Nfs3.PROC_RENAME -> Nfs3Args.RenameArgs::decode;
            case Nfs3.PROC_LINK -> Nfs3Args.LinkArgs::decode;
            case Nfs3.PROC_READDIR -> Nfs3Args.ReaddirArgs::decodeReaddir;
            case Nfs3.PROC_READDIRPLUS -> Nfs3Args.ReaddirArgs::decodeReaddirplus;
            case Nfs3.PROC_COMMIT -> Nfs3Args.CommitArgs::decode;
            default -> throw new IllegalArgumentException("procedure " + procedure);
        };
    }

    @FuzzTest
    void decode(byte[] input) throws Exception {
        if (input.length == 0) {
            return;
        }
        int procedure = PROCEDURES.get((input[0] & 0xFF) % PROCEDURES.size());
        MemorySegment data = MemorySegment.ofArray(Arrays.copyOfRange(input, 1, input.length));
        XdrReader<?> reader = reader(procedure);
        Object[] decoded = new Object[1];
        long[] read = new long[1];
        AllocationBudget.within("arguments of procedure " + procedure, bound(input.length), () -> {
            XdrDecoder in = new XdrDecoder(data);
            try {
                decoded[0] = reader.read(in);
                read[0] = in.position();
            } catch (XdrException refused) {
                decoded[0] = null;
            }
        });
        if (decoded[0] == null) {
            return;
        }
        check(decoded[0], data);
        byte[] again = new byte[(int) read[0]];
        XdrEncoder out = new XdrEncoder(MemorySegment.ofArray(again));
        encode(decoded[0], out);
        assertTrue(out.position() == read[0], "re-encoded " + out.position() + " bytes of " + read[0]);
        assertArrayEquals(
                data.asSlice(0, read[0]).toArray(ValueLayout.JAVA_BYTE),
                again,
                "procedure " + procedure + " re-encodes to other bytes");
    }

    /** The limits what decodes keeps. */
    private static void check(Object args, MemorySegment data) {
        switch (args) {
            case FileHandle3 fh -> assertTrue(fh.bytes().length <= Nfs3.FHSIZE);
            case Nfs3Args.DirOp d -> {
                check(d.dir(), data);
                assertTrue(d.name().length() <= 4096);
            }
            case Nfs3Args.SymlinkArgs s -> {
                check(s.where(), data);
                assertTrue(s.target().length() <= Nfs3Server.MAX_PATH + 1);
            }
            case Nfs3Args.WriteArgs w -> {
                assertTrue(w.data().byteSize() <= data.byteSize());
                assertTrue(
                        w.data().heapBase().orElse(null) == data.heapBase().orElse(null),
                        "WRITE data is a view of the call, not a copy");
                assertTrue(FileDataProcedures.writeBuffer(w) <= Nfs3Server.MAX_IO);
            }
            case Nfs3Args.ReadArgs r -> {
                long buffer = FileDataProcedures.readBuffer(r);
                assertTrue(buffer <= Nfs3Server.MAX_IO && buffer >= 0);
            }
            default -> {}
        }
    }

    /** The arguments in XDR: the shared records' own encoding (the client's), which must give back the input. */
    static void encode(Object args, XdrEncoder out) {
        switch (args) {
            case FileHandle3 fh -> fh.encodeTo(out);
            case XdrEncodable e -> e.encodeTo(out);
            default -> throw new AssertionError(args.getClass());
        }
    }
}
