package org.panamardma.rpcrdma;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The three chunk lists that RDMA_MSG, RDMA_NOMSG and RDMA_MSGP carry (draft-ietf-nfsv4-rpcrdma-08 section 4.3,
 * {@code rpc_rdma_header}; RFC 8166 section 4.3): the Read list, the Write list and the optional Reply chunk.
 *
 * @param readList the Read list's segments in wire order, positions non-decreasing
 * @param writeList the Write list's chunks in wire order
 * @param replyChunk the Reply chunk, if any
 */
public record ChunkLists(List<ReadSegment> readList, List<WriteChunk> writeList, Optional<WriteChunk> replyChunk) {
    /** No chunks at all: a message sent wholly inline. */
    public static final ChunkLists NONE = new ChunkLists(List.of(), List.of(), Optional.empty());

    /**
     * Copies the lists (the record is immutable).
     *
     * @throws NullPointerException if {@code replyChunk} is null
     */
    public ChunkLists {
        readList = List.copyOf(readList);
        writeList = List.copyOf(writeList);
        Objects.requireNonNull(replyChunk, "replyChunk");
    }

    /** {@return the Read list grouped into Read chunks} */
    public List<ReadChunk> readChunks() {
        return ReadChunk.group(readList);
    }

    /** {@return whether no list holds anything} */
    public boolean isEmpty() {
        return readList.isEmpty() && writeList.isEmpty() && replyChunk.isEmpty();
    }

    /** {@return the encoded size of the three lists} */
    public int xdrSize() {
        int size = readList.size() * ReadSegment.XDR_SIZE_IN_LIST + 4;
        for (WriteChunk chunk : writeList) {
            size += 4 + chunk.xdrSize();
        }
        size += 4;
        return size + 4 + replyChunk.map(WriteChunk::xdrSize).orElse(0);
    }
}
