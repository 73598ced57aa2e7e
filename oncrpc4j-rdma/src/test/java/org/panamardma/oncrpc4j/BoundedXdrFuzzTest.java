package org.panamardma.oncrpc4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.dcache.oncrpc4j.xdr.BadXdrOncRpcException;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.MemoryManager;
import org.panamardma.testing.AllocationBudget;
import org.panamardma.testing.OpsAndData;

/**
 * Drives {@link BoundedXdr}'s getters, oncrpc4j's {@link Xdr} decoding with counts checked against the call before
 * anything is allocated, in an order the fuzzer chooses (rpcrdma/FUZZING.md, target {@code bounded-xdr}). Input:
 * byte 0 is the number {@code n} of operation bytes, bytes 1..n the operations, the rest the call's bytes as the
 * bridge hands them to oncrpc4j. An operation byte's value modulo {@value #GETTERS} picks the getter, its top three
 * bits the length a program passes to a fixed-length getter (including hostile ones: negative, 2^31 - 1).
 *
 * <p>The typed refusal is {@link BadXdrOncRpcException}, after which the call is abandoned as the bridge does
 * (GARBAGE_ARGS). Anything else escaping is a finding; so is an allocation over the bound; and so is a result that
 * differs from oncrpc4j's own {@link Xdr} decoding the same bytes (run after the bounded pass, on the getters that
 * succeeded there: BoundedXdr must decode exactly as oncrpc4j does, refusing only what would read past the call).
 */
class BoundedXdrFuzzTest {
    private static final int GETTERS = 21;
    private static final int[] LENGTHS = {0, 1, 2, 3, 7, 1024, -1, Integer.MAX_VALUE};
    private static final MemoryManager<?> MEMORY = MemoryManager.DEFAULT_MEMORY_MANAGER;

    /**
     * What decoding may allocate: every array or string a getter returns has passed the check that its elements'
     * wire bytes are in the call, and no element takes more heap than its wire bytes but a string (a byte array of
     * its length, then a String of up to 2 bytes per byte: 3 heap bytes per wire byte) and headers (16 bytes per
     * array for at least 4 wire bytes of count): 8 per input byte is ample. Each getter also boxes its result into
     * the list the target compares afterwards (at most about 32 bytes per operation byte, so per input byte), and
     * the one refusal costs a constant (oncrpc4j's exception, its stack trace, BoundedXdr's debug message). The Grizzly
     * buffer around the input is made before measuring.
     */
    private static long bound(int inputLength) {
        return (64 << 10) + 40L * inputLength;
    }

    @FuzzTest
    void getters(byte[] input) throws Exception {
        if (input.length == 0) {
            return;
        }
        OpsAndData script = OpsAndData.of(input);
        byte[] ops = script.ops();
        byte[] call = script.data();
        List<Object> bounded = new ArrayList<>(ops.length);
        Xdr xdr = new BoundedXdr(OncRpcBridge.wrap(MemorySegment.ofArray(call)), MEMORY);
        xdr.beginDecoding();
        AllocationBudget.within("BoundedXdr getters", bound(input.length), () -> {
            bounded.clear();
            Xdr again = new BoundedXdr(OncRpcBridge.wrap(MemorySegment.ofArray(call)), MEMORY);
            again.beginDecoding();
            run(again, ops, bounded);
        });
        // oncrpc4j's own Xdr over the getters BoundedXdr let through: the same values, in the same order
        Xdr plain = new Xdr(Buffers.wrap(MEMORY, call.clone()));
        plain.beginDecoding();
        List<Object> reference = new ArrayList<>(bounded.size());
        for (int i = 0; i < bounded.size(); i++) {
            reference.add(normalize(apply(plain, ops[i] & 0xFF)));
        }
        assertEquals(
                reference,
                bounded.stream().map(BoundedXdrFuzzTest::normalize).toList(),
                "BoundedXdr decodes as oncrpc4j does");
    }

    private static void run(Xdr xdr, byte[] ops, List<Object> results) {
        try {
            for (byte op : ops) {
                results.add(apply(xdr, op & 0xFF));
            }
        } catch (BadXdrOncRpcException refused) {
            assertTrue(refused.getMessage() != null, "a refusal says why");
        }
    }

    private static Object apply(Xdr in, int op) throws BadXdrOncRpcException {
        int len = LENGTHS[op >>> 5];
        return switch (op % GETTERS) {
            case 0 -> in.xdrDecodeInt();
            case 1 -> in.xdrDecodeLong();
            case 2 -> in.xdrDecodeBoolean();
            case 3 -> in.xdrDecodeString();
            case 4 -> in.xdrDecodeDynamicOpaque();
            case 5 -> in.xdrDecodeOpaque(len);
            case 6 -> in.xdrDecodeIntVector();
            case 7 -> in.xdrDecodeIntFixedVector(len);
            case 8 -> in.xdrDecodeLongVector();
            case 9 -> in.xdrDecodeLongFixedVector(len);
            case 10 -> in.xdrDecodeFloatVector();
            case 11 -> in.xdrDecodeFloatFixedVector(len);
            case 12 -> in.xdrDecodeDoubleVector();
            case 13 -> in.xdrDecodeDoubleFixedVector(len);
            case 14 -> in.xdrDecodeByteVector();
            case 15 -> in.xdrDecodeByteFixedVector(len);
            case 16 -> in.xdrDecodeShortVector();
            case 17 -> in.xdrDecodeShortFixedVector(len);
            case 18 -> in.xdrDecodeByteBuffer();
            case 19 -> in.xdrDecodeFloat() + in.xdrDecodeDouble();
            default -> (int) in.xdrDecodeShort() + in.xdrDecodeByte();
        };
    }

    /** Arrays and buffers as lists of their contents, so that results compare by value. */
    private static Object normalize(Object result) {
        return switch (result) {
            case byte[] a -> List.of(Arrays.toString(a));
            case int[] a -> List.of(Arrays.toString(a));
            case long[] a -> List.of(Arrays.toString(a));
            case short[] a -> List.of(Arrays.toString(a));
            case float[] a -> List.of(Arrays.toString(a));
            case double[] a -> List.of(Arrays.toString(a));
            case ByteBuffer b -> List.of("buffer", b.remaining(), b.hashCode());
            case Double d when d.isNaN() -> "NaN"; // NaN != NaN: compare that both are
            case Float f when f.isNaN() -> "NaN";
            default -> result;
        };
    }
}
