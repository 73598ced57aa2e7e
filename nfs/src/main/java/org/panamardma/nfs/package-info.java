/**
 * An example on top of {@code org.panamardma.oncrpc}: a small NFS version 3 client (RFC 1813) with the MOUNT
 * protocol and the port mapper / rpcbind (RFC 1833).
 *
 * <p>{@link org.panamardma.nfs.Nfs3Client} speaks NFSv3 over any {@link org.panamardma.nfs.rpc.RpcTransport}:
 * {@link org.panamardma.nfs.rpc.TcpRpcTransport} today, RPC-over-RDMA (RFC 8166, RFC 8267) next. The data of READ
 * results and WRITE arguments is marked eligible for direct data placement, so an RDMA transport can move it with
 * RDMA Write and Read instead of through inline messages. {@link org.panamardma.nfs.MountClient} gets an export's
 * root handle; {@link org.panamardma.nfs.PortmapClient} finds mountd's port. {@link org.panamardma.nfs.Nfs3Xdr}
 * encodes the procedures' arguments and {@link org.panamardma.nfs.Nfs3ResultsXdr} reads their results.
 *
 * <p>Why NFSv3 rather than NFSv4.0: each v3 procedure is one RPC with a fixed argument and result shape, so the
 * DDP-eligible items (READ and WRITE data) are at known places in a small message, and a file handle from MOUNT is
 * all the state there is; v4.0 needs COMPOUNDs, SETCLIENTID/CONFIRM and OPEN state before the first READ or WRITE,
 * which adds much code and nothing for exercising the RPC-over-RDMA chunk paths. Both run over Linux's svcrdma.
 */
package org.panamardma.nfs;
