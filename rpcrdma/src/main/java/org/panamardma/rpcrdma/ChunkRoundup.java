package org.panamardma.rpcrdma;

import org.panamardma.xdr.Xdr;

/**
 * XDR roundup and chunks: how the 0-3 padding bytes that follow variable-length XDR data relate to Read and Write
 * chunks (draft-ietf-nfsv4-rpcrdma-08 section 3.7; RFC 8166 sections 3.4.5.2 and 3.4.6).
 *
 * <p>Roundup is never moved by RDMA: a chunked item's padding is in neither the chunk nor the inline stream.
 * Senders following RFC 8166 leave it out of chunk lengths; the draft allowed a Read chunk to include roundup that
 * was already in the sender's buffer, and had Write chunk lengths in replies increased to include it. This class
 * computes the RFC 8166 values and accepts either form.
 */
public final class ChunkRoundup {
    private ChunkRoundup() {}

    /**
     * {@return {@code length} rounded up to the next multiple of 4: the item's extent in the XDR stream}
     *
     * @param length an item's length in bytes
     */
    public static long roundUp(long length) {
        return Xdr.roundUp(length);
    }

    /**
     * {@return how many roundup bytes follow {@code length} data bytes in the XDR stream: 0 to 3}
     *
     * @param length an item's length in bytes
     */
    public static int roundupBytes(long length) {
        return Xdr.padding(length);
    }

    /**
     * Where the inline stream resumes after a Read chunk (draft section 3.7): the receiver, finding no inline data
     * at the chunk's end, concludes that roundup is present and advances to the next 4-byte XDR position, so the
     * next item of the full stream is at {@code position + roundUp(length)}.
     *
     * @param position the chunk's XDR position
     * @param length the chunk's length (with or without roundup: both give the same result)
     * @return the XDR position of the item after the chunk
     */
    public static long nextXdrPosition(long position, long length) {
        return Math.addExact(position, roundUp(length));
    }

    /**
     * The length a sender puts in a Read chunk for an item of {@code itemLength} bytes: the data alone, without
     * roundup, so that no extra segment is registered for padding (RFC 8166 section 3.4.5.2; draft section 3.7:
     * "Senders SHOULD therefore avoid encoding individual RDMA Read Chunks for roundup").
     *
     * @param itemLength the item's length in bytes
     * @return the Read chunk's length
     */
    public static long readChunkLength(long itemLength) {
        return itemLength;
    }

    /**
     * Whether a received Read chunk length is right for an item whose XDR length word says {@code itemLength}:
     * exactly the data (RFC 8166), or the data plus its roundup (allowed by the draft, section 3.7).
     *
     * @param itemLength the item's length, from its XDR length word
     * @param chunkLength the Read chunk's length as received
     * @return whether the chunk length is one of the two allowed
     */
    public static boolean isValidReadChunkLength(long itemLength, long chunkLength) {
        return chunkLength == itemLength || chunkLength == roundUp(itemLength);
    }

    /**
     * The length a responder reports in a Write chunk after writing an item of {@code itemLength} bytes: the data
     * alone. The roundup is not written (RFC 8166 section 3.4.6).
     *
     * @param itemLength the item's length in bytes
     * @return the length to report in the reply's Write list
     */
    public static long writeChunkReturnedLength(long itemLength) {
        return itemLength;
    }

    /**
     * Whether a Write chunk length returned in a reply is right for an item of {@code itemLength} bytes: exactly
     * the data (RFC 8166), or the data plus roundup ("the chunk length sent to the receiver in the reply is simply
     * increased to include any roundup", draft section 3.7).
     *
     * @param itemLength the item's length in bytes
     * @param returnedLength the length the reply's Write list reports
     * @return whether the returned length is one of the two allowed
     */
    public static boolean isValidWriteChunkLength(long itemLength, long returnedLength) {
        return returnedLength == itemLength || returnedLength == roundUp(itemLength);
    }
}
