package org.panamardma.rpcrdma;

import java.util.ArrayList;
import java.util.List;

/**
 * A Read chunk: the Read list segments that share one XDR position, together holding one data item (or, at
 * position zero, the whole RPC message). RFC 8166 section 3.4.5; draft-ietf-nfsv4-rpcrdma-08 section 3.4 ("all
 * chunks belonging to a single RPC argument or result will have the same position").
 *
 * @param position the XDR position of the item in the full RPC message
 * @param segments the segments, in transfer order
 */
public record ReadChunk(int position, List<RdmaSegment> segments) {
    /** Copies the segments. */
    public ReadChunk {
        segments = List.copyOf(segments);
    }

    /**
     * {@return the chunk's length, the sum of its segment lengths}
     *
     * @throws ArithmeticException if the sum exceeds 2<sup>31</sup>-1
     */
    public int length() {
        int total = 0;
        for (RdmaSegment segment : segments) {
            total = Math.addExact(total, segment.length());
        }
        return total;
    }

    /**
     * Groups a Read list into chunks: each run of consecutive segments with the same position is one chunk.
     *
     * @param readList the Read list in wire order
     * @return the chunks in wire order
     */
    public static List<ReadChunk> group(List<ReadSegment> readList) {
        List<ReadChunk> chunks = new ArrayList<>();
        int i = 0;
        while (i < readList.size()) {
            int position = readList.get(i).position();
            List<RdmaSegment> segments = new ArrayList<>();
            while (i < readList.size() && readList.get(i).position() == position) {
                segments.add(readList.get(i++).target());
            }
            chunks.add(new ReadChunk(position, segments));
        }
        return List.copyOf(chunks);
    }
}
