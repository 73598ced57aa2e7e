/**
 * XDR (RFC 4506) over {@link java.lang.foreign.MemorySegment}, zero-copy for opaque data. Knows nothing of RDMA.
 */
package org.panamardma.xdr;
