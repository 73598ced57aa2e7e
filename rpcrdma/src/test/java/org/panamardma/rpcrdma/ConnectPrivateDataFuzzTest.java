package org.panamardma.rpcrdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import org.panamardma.testing.AllocationBudget;

/**
 * Fuzzes the RFC 8797 private data a peer sends in its RDMA-CM connect request or accept (FUZZING.md).
 * {@link ConnectPrivateData#decode} declares no exception at all: foreign or short data yields the defaults.
 */
class ConnectPrivateDataFuzzTest {
    /** The decode reads 8 bytes and builds one record: a few objects, whatever the input's length. */
    private static final long BOUND = 16 << 10;

    @FuzzTest
    void decode(byte[] data) throws Exception {
        ConnectPrivateData[] decoded = new ConnectPrivateData[2];
        AllocationBudget.within("ConnectPrivateData.decode", BOUND, () -> {
            decoded[0] = ConnectPrivateData.decode(data);
            decoded[1] = ConnectPrivateData.decode(MemorySegment.ofArray(data));
        });
        assertEquals(decoded[0], decoded[1], "byte[] and segment decodes differ");
        ConnectPrivateData cp = decoded[0];
        if (!cp.present()) {
            assertSame(ConnectPrivateData.DEFAULTS, cp);
            return;
        }
        // What was accepted re-encodes to the bytes read, bar the flag bits RFC 8797 leaves unassigned.
        byte[] expected = Arrays.copyOf(data, ConnectPrivateData.ENCODED_LENGTH);
        expected[5] &= ConnectPrivateData.FLAG_REMOTE_INVALIDATION;
        assertArrayEquals(expected, cp.encode());
    }
}
