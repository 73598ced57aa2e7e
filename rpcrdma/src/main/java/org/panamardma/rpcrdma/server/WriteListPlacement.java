package org.panamardma.rpcrdma.server;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.panamardma.rpcrdma.RdmaSegment;
import org.panamardma.rpcrdma.WriteChunk;
import org.panamardma.xdr.DataPlacement;

/**
 * Puts a reply's DDP-eligible result items into the Write chunks the client offered, in order: the n-th eligible
 * item goes to the n-th Write chunk (RFC 8166 section 3.4.6; draft-ietf-nfsv4-rpcrdma-08 section 3.4: "the Write
 * list ... the server ... fills them in order"). Items beyond the Write list stay inline.
 *
 * <p>An item longer than its chunk cannot be placed there nor anywhere the client expects it: that is recorded as a
 * fault and the reply becomes ERR_CHUNK, as for a Reply chunk too small.
 */
final class WriteListPlacement implements DataPlacement {
    /** An item taken for chunk {@code chunk}. */
    record Placed(int chunk, long streamPosition, MemorySegment data) {}

    private final List<WriteChunk> offered;
    private final List<Placed> placed = new ArrayList<>();
    private String fault;
    private boolean rewound;

    WriteListPlacement(List<WriteChunk> offered) {
        this.offered = offered;
    }

    @Override
    public boolean placeDirectly(long streamPosition, MemorySegment data) {
        int next = placed.size();
        if (next >= offered.size()) {
            return false;
        }
        long capacity = offered.get(next).length();
        if (data.byteSize() > capacity) {
            if (fault == null) {
                fault = "result item of " + data.byteSize() + " bytes for Write chunk " + next + " of " + capacity;
            }
            return false;
        }
        placed.add(new Placed(next, streamPosition, data));
        return true;
    }

    @Override
    public void discardFrom(long streamPosition) {
        placed.removeIf(p -> p.streamPosition() >= streamPosition);
        fault = null; // the item at fault was rewound too: an error reply replaces the results
        rewound = true;
    }

    /**
     * {@return whether the encoder was rewound: the dispatcher does that only when the results failed to encode,
     *         which for a well-behaved program means they did not fit the reply buffer}
     */
    boolean rewound() {
        return rewound;
    }

    /** {@return the items placed, in Write list order} */
    List<Placed> placed() {
        return List.copyOf(placed);
    }

    /** {@return why the results do not fit the Write list, or null} */
    String fault() {
        return fault;
    }

    /**
     * The Write list as returned in the reply: every offered chunk, with its segment lengths rewritten to the bytes
     * written into each (0 for chunks and segments left unused), as RFC 8166 section 3.4.6 has the responder do.
     */
    List<WriteChunk> returned() {
        List<WriteChunk> result = new ArrayList<>(offered.size());
        for (int i = 0; i < offered.size(); i++) {
            long used = i < placed.size() ? placed.get(i).data().byteSize() : 0;
            result.add(filled(offered.get(i), used));
        }
        return result;
    }

    /** {@code chunk} with its segments' lengths set to what {@code used} bytes, written in order, occupy. */
    static WriteChunk filled(WriteChunk chunk, long used) {
        List<RdmaSegment> segments = new ArrayList<>(chunk.segments().size());
        long left = used;
        for (RdmaSegment s : chunk.segments()) {
            int n = (int) Math.min(left, s.length());
            segments.add(new RdmaSegment(s.handle(), n, s.offset()));
            left -= n;
        }
        return new WriteChunk(segments);
    }
}
