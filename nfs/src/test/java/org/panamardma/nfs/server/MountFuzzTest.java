package org.panamardma.nfs.server;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import org.panamardma.nfs.FileHandle3;
import org.panamardma.nfs.Mount3;
import org.panamardma.nfs.MountStat3;
import org.panamardma.nfs.Nfs3;
import org.panamardma.oncrpc.AuthFlavor;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.RpcCall;
import org.panamardma.testing.AllocationBudget;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrException;

/**
 * Fuzzes MOUNT's decoders and the identity a credential becomes (nfs/FUZZING.md). Byte 0 chooses: 0, the server's
 * {@code dirpath} argument of MNT and UMNT; 1, the client's {@code mountres3} ({@link Mount3#decodeMountResult},
 * facing a hostile server); 2, the client's {@code exports} list ({@link Mount3#decodeExports}); 3, an AUTH_SYS
 * credential body mapped by {@link Squashing} under root squash, all_squash and no squash, which must give ids the
 * kernel can represent, no root under root squash, the anonymous ids under all_squash, and at most 16 groups.
 * The typed refusal is {@link XdrException}.
 */
class MountFuzzTest {
    private static final Squashing SQUASHING =
            new Squashing(IdRanges.ALL, IdRanges.ALL, new ServerIdentity(0, 0, true));

    /**
     * A dirpath is at most 1024 bytes, copied once; a credential body at most 400 (the RPC limit), with a 255-byte
     * name and 16 groups; the client's lists are decoded element by element, each a string of at most 1024 bytes
     * (2 heap bytes per input byte, a list slot and a record per element). 32 per input byte, and 64 KiB for the
     * refusal's exception.
     */
    private static long bound(int inputLength) {
        return (64 << 10) + 32L * inputLength;
    }

    @FuzzTest
    void decode(byte[] input) throws Exception {
        if (input.length == 0) {
            return;
        }
        MemorySegment data = MemorySegment.ofArray(Arrays.copyOfRange(input, 1, input.length));
        int which = (input[0] & 0xFF) % 4;
        Object[] result = new Object[1];
        AllocationBudget.within("MOUNT decoder " + which, bound(input.length), () -> {
            XdrDecoder in = new XdrDecoder(data);
            try {
                result[0] = switch (which) {
                    case 0 -> in.getOpaqueBytes(Mount3.MNTPATHLEN);
                    case 1 -> Mount3.decodeMountResult(in);
                    case 2 -> Mount3.decodeExports(in);
                    default -> identities(Arrays.copyOfRange(input, 1, Math.min(input.length, 401)));
                };
            } catch (XdrException refused) {
                result[0] = null;
            }
        });
        switch (result[0]) {
            case null -> {}
            case byte[] path -> assertTrue(path.length <= Mount3.MNTPATHLEN);
            case Mount3.MountResult r -> assertTrue(r.root().bytes().length <= Nfs3.FHSIZE);
            case MountStat3 status -> assertTrue(status != MountStat3.MNT3_OK);
            case List<?> exports -> {
                for (Object e : exports) {
                    Mount3.Export x = (Mount3.Export) e;
                    assertTrue(x.directory().length() <= Mount3.MNTPATHLEN);
                    x.groups().forEach(g -> assertTrue(g.length() <= Mount3.MNTNAMLEN));
                }
            }
            case Caller[] callers -> {
                for (Caller c : callers) {
                    assertTrue(c.uid() != -1 && c.gid() != -1, "an id the kernel cannot represent: " + c);
                    assertTrue(c.groups().length <= 16, c.toString());
                    for (int g : c.groups()) {
                        assertTrue(g != -1, c.toString());
                    }
                }
                assertTrue(callers[0].uid() != 0 && callers[0].gid() != 0, "root squashed: " + callers[0]);
                for (int g : callers[0].groups()) {
                    assertTrue(g != 0, "root's group squashed: " + callers[0]);
                }
                assertTrue(
                        callers[1].uid() == 65534 && callers[1].gid() == 65534 && callers[1].groups().length == 0,
                        "all squashed: " + callers[1]);
                assertFalse(callers[1].permittedMode(06777) != 0777);
            }
            default -> throw new AssertionError(result[0].getClass());
        }
    }

    /** The credential under root_squash, all_squash and no_root_squash. */
    private static Caller[] identities(byte[] body) {
        RpcCall call = RpcCall.of(
                1, Nfs3.PROGRAM, Nfs3.VERSION, 1, new OpaqueAuth(AuthFlavor.AUTH_SYS, body), OpaqueAuth.NONE);
        return new Caller[] {
            SQUASHING.map(call, ExportOptions.DEFAULTS),
            SQUASHING.map(call, ExportOptions.DEFAULTS.withAllSquash(true)),
            SQUASHING.map(call, ExportOptions.DEFAULTS.withRootSquash(false))
        };
    }

    /** A handle's bytes, for the seeds. */
    static byte[] handle() {
        return new FileHandle3(new byte[] {1, 2, 3}).bytes();
    }
}
