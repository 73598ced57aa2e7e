package org.panamardma.rpcrdma;

import java.util.List;
import java.util.Optional;

/**
 * Hand-built golden transport headers, word by word from the XDR of draft-ietf-nfsv4-rpcrdma-08 section 4.3
 * (identical on the wire to RFC 8166 section 4.1 for these types), and the header values they encode.
 */
final class GoldenHeaders {
    static final int XID = 0x0DEF0001;
    static final int CREDITS = 32;

    private GoldenHeaders() {}

    /** The chunk lists every chunk-bearing golden header carries: 2 read segments, 2 write chunks, a reply chunk. */
    static final ChunkLists CHUNKS = new ChunkLists(
            List.of(
                    ReadSegment.of(0x40, 0xA1A1A1A1, 0x1000, 0x00007F0012340000L),
                    ReadSegment.of(0x40, 0xA2A2A2A2, 0x0802, 0x00007F0012341000L)),
            List.of(
                    WriteChunk.of(
                            new RdmaSegment(0xB1B1B1B1, 0x2000, 0x00007F0056780000L),
                            new RdmaSegment(0xB2B2B2B2, 0x1000, 0x00007F0056782000L)),
                    WriteChunk.of(new RdmaSegment(0xB3B3B3B3, 0x0400, 0x0000000000009000L))),
            Optional.of(WriteChunk.of(new RdmaSegment(0xC1C1C1C1, 0x10000, 0x00007F009ABC0000L))));

    /** The words of {@link #CHUNKS}: rdma_reads, rdma_writes, rdma_reply. */
    static final int[] CHUNK_WORDS = {
        // struct xdr_read_list *rdma_reads
        1, // entry present (optional-data TRUE)
        0x40, //   xdr_read_chunk.position
        0xA1A1A1A1, //   target.handle
        0x00001000, //   target.length
        0x00007F00,
        0x12340000, //   target.offset (uint64, high word first)
        1, // next entry present
        0x40, //   position (same chunk: same position)
        0xA2A2A2A2, //   handle
        0x00000802, //   length
        0x00007F00,
        0x12341000, //   offset
        0, // end of read list (next == NULL)
        // struct xdr_write_list *rdma_writes
        1, // entry present
        2, //   xdr_write_chunk.target<>: 2 segments
        0xB1B1B1B1, //     handle
        0x00002000, //     length
        0x00007F00,
        0x56780000, //     offset
        0xB2B2B2B2, //     handle
        0x00001000, //     length
        0x00007F00,
        0x56782000, //     offset
        1, // next entry present
        1, //   target<>: 1 segment
        0xB3B3B3B3, //     handle
        0x00000400, //     length
        0x00000000,
        0x00009000, //     offset
        0, // end of write list
        // struct xdr_write_chunk *rdma_reply
        1, // present
        1, //   target<>: 1 segment
        0xC1C1C1C1, //     handle
        0x00010000, //     length
        0x00007F00,
        0x9ABC0000, //     offset
    };

    static int[] concat(int[] head, int[] tail) {
        int[] all = new int[head.length + tail.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(tail, 0, all, head.length, tail.length);
        return all;
    }

    /** A golden vector: the header and its exact words. */
    record Golden(String name, RpcRdmaHeader header, int[] words) {}

    static List<Golden> all() {
        return List.of(
                new Golden(
                        "RDMA_MSG",
                        new RdmaMsg(XID, CREDITS, CHUNKS),
                        concat(
                                new int[] {
                                    XID, // rdma_xid
                                    1, // rdma_vers
                                    CREDITS, // rdma_credit
                                    0, // rdma_proc RDMA_MSG
                                },
                                CHUNK_WORDS)),
                new Golden(
                        "RDMA_NOMSG",
                        new RdmaNoMsg(XID, CREDITS, CHUNKS),
                        concat(
                                new int[] {
                                    XID, // rdma_xid
                                    1, // rdma_vers
                                    CREDITS, // rdma_credit
                                    1, // rdma_proc RDMA_NOMSG
                                },
                                CHUNK_WORDS)),
                new Golden(
                        "RDMA_MSGP",
                        new RdmaMsgp(XID, CREDITS, 4096, 1024, CHUNKS),
                        concat(
                                new int[] {
                                    XID, // rdma_xid
                                    1, // rdma_vers
                                    CREDITS, // rdma_credit
                                    2, // rdma_proc RDMA_MSGP
                                    4096, // rdma_align
                                    1024, // rdma_thresh
                                },
                                CHUNK_WORDS)),
                new Golden("RDMA_DONE", new RdmaDone(XID, CREDITS), new int[] {
                    XID, // rdma_xid
                    1, // rdma_vers
                    CREDITS, // rdma_credit
                    3, // rdma_proc RDMA_DONE, void body
                }),
                new Golden("RDMA_ERROR ERR_VERS", new RdmaError.VersionMismatch(XID, CREDITS, 1, 1), new int[] {
                    XID, // rdma_xid
                    1, // rdma_vers
                    CREDITS, // rdma_credit
                    4, // rdma_proc RDMA_ERROR
                    1, // rdma_err ERR_VERS
                    1, // rdma_vers_low
                    1, // rdma_vers_high
                }),
                new Golden("RDMA_ERROR ERR_CHUNK", new RdmaError.ChunkError(XID, CREDITS), new int[] {
                    XID, // rdma_xid
                    1, // rdma_vers
                    CREDITS, // rdma_credit
                    4, // rdma_proc RDMA_ERROR
                    2, // rdma_err ERR_CHUNK, void
                }),
                new Golden("RDMA_MSG without chunks", new RdmaMsg(XID, 1, ChunkLists.NONE), new int[] {
                    XID, // rdma_xid
                    1, // rdma_vers
                    1, // rdma_credit
                    0, // rdma_proc RDMA_MSG
                    0, // no read list
                    0, // no write list
                    0, // no reply chunk
                }));
    }
}
