package org.panamardma.rpcrdma.server;

import java.lang.foreign.MemorySegment;
import org.panamardma.oncrpc.RpcDispatcher;
import org.panamardma.xdr.XdrEncodable;

/**
 * A test program served over RDMA and TCP alike: NULL, ECHO (opaque in, the same opaque out as a DDP-eligible
 * result, so a Write chunk can carry it) and ECHO_PLAIN (the same, but not eligible: inline or in the Reply chunk).
 */
public final class EchoProgram {
    public static final int PROGRAM = 0x2000_5151;
    public static final int VERSION = 1;
    public static final int NULL = 0;
    public static final int ECHO = 1;
    public static final int ECHO_PLAIN = 2;
    public static final int MAX = 16 << 20;

    private EchoProgram() {}

    /** Registers the program's procedures. */
    public static RpcDispatcher.Builder register(RpcDispatcher.Builder b) {
        return b.register(PROGRAM, VERSION, NULL, in -> "", (args, call) -> XdrEncodable.VOID)
                .register(
                        PROGRAM,
                        VERSION,
                        ECHO,
                        in -> in.getOpaque(MAX),
                        (MemorySegment data, org.panamardma.oncrpc.RpcCall call) ->
                                out -> out.putEligibleOpaque(data, MAX))
                .register(
                        PROGRAM,
                        VERSION,
                        ECHO_PLAIN,
                        in -> in.getOpaque(MAX),
                        (MemorySegment data, org.panamardma.oncrpc.RpcCall call) -> out -> out.putOpaque(data, MAX));
    }

    /** A dispatcher serving only this program. */
    public static RpcDispatcher dispatcher() {
        return register(RpcDispatcher.builder()).build();
    }

    /** The test pattern: byte i is (i * 7 + seed) mod 251. */
    public static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) ((i * 7L + seed) % 251);
        }
        return b;
    }
}
