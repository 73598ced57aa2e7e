/**
 * What an RPC server bounds, shared by its transports (TCP and RPC-over-RDMA): which connections it takes
 * ({@link org.panamardma.oncrpc.limits.ConnectionAdmission}: caps in all and per client address), the memory their
 * calls may hold ({@link org.panamardma.oncrpc.limits.MemoryBudget}: per connection within per server, shared fairly
 * between connections), and how refusals reach the log ({@link org.panamardma.oncrpc.limits.RateLimitedLog}: counted
 * always, logged at a bounded rate). No RDMA here: the TCP transport uses the same classes.
 */
package org.panamardma.oncrpc.limits;
