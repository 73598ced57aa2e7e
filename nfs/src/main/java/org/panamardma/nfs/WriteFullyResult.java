package org.panamardma.nfs;

/**
 * What {@link Nfs3Client#writeFully} did: all its WRITEs together.
 *
 * @param count the bytes written: all of them (a call that writes nothing fails instead)
 * @param calls the WRITEs sent
 * @param committed the weakest commitment of any of the WRITEs: COMMIT is needed unless it is FILE_SYNC
 * @param verifier the write verifier of the WRITEs (all equal, see {@link Nfs3Client#writeFully}); compare it with a
 *                 later COMMIT's
 */
public record WriteFullyResult(long count, int calls, StableHow committed, long verifier) {}
