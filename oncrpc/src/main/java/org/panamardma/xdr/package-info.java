/**
 * XDR (RFC 4506) over {@link java.lang.foreign.MemorySegment}, zero-copy for opaque data. Knows nothing of RDMA.
 *
 * <p>{@link org.panamardma.xdr.XdrEncoder} writes into a caller's segment without allocating per item;
 * {@link org.panamardma.xdr.XdrDecoder} reads with every bound and declared maximum checked, returning opaque data
 * as slices of the source; {@link org.panamardma.xdr.Xdr} computes encoded sizes ahead. Faults are the unchecked
 * {@link org.panamardma.xdr.XdrException}, carrying a reason and the offset at fault.
 * {@link org.panamardma.xdr.DataPlacement} is the hook through which a transport may carry bulk data out of band.
 */
package org.panamardma.xdr;
