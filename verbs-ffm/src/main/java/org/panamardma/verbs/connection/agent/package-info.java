/**
 * RFC 7306 (RDMA Protocol Extensions: atomics and immediate data) where the RNIC lacks it: a responder-side agent in
 * the connection layer. No iWARP device we can reach implements RFC 7306 (Linux siw lists its opcodes as
 * unsupported, iw_cxgb4 never sets {@code atomic_cap}, irdma grants atomics only to some parts), so an application
 * written for RoCE's atomics and immediate data would not run on iWARP. With the agent it does, unchanged: {@code
 * RdmaConnection.fetchAdd}, {@code compareSwap}, {@code maskedFetchAdd}, {@code maskedCompareSwap},
 * {@code sendWithImmediate} and {@code writeWithImmediate} work on siw once both ends enable it
 * ({@code ConnectionOptions.withAgent(AgentMode.WHERE_DEVICE_LACKS)}), and {@code RdmaConnection.capabilities()} says
 * "by agent" where the device would say "by device".
 *
 * <h2>How</h2>
 * The requester sends each operation as an RFC 7306 Atomic Request (section 5.2.1, the RFC's own 52 bytes) in a
 * SEND; the responder's agent checks it against its own registrations as an RNIC would, executes it on its memory and
 * answers with an Atomic Response (section 5.2.2) carrying the original value. Immediate data travels as RFC 7306's
 * Immediate Data message (section 6), after the WRITE for a WRITE with immediate data. Every SEND of an agent
 * connection carries a 4-byte control word (RFC 5040's RDMAP Control Field and flags), so that application messages
 * and the agent's can share the receive queue (the package-private {@code AgentWire} documents the
 * format). Both ends agree in the rdma_cm private data ({@link org.panamardma.verbs.connection.agent.Handshake}); a
 * peer without the agent leaves it off, and what only the agent could provide is then refused before anything is
 * posted.
 *
 * <h2>What is guaranteed</h2>
 * <ul>
 *   <li><b>Checks with the RFC's errors.</b> An Atomic Request for an STag that names no region of the connection's
 *       protection domain, for bytes outside the region, for a region without {@code REMOTE_ATOMIC}, at an address
 *       not 64-bit aligned, or with an Atomic Operation Code RFC 7306 does not define is not executed; memory is
 *       untouched; the responder sends a Terminate with the RFC's error (RFC 5040 section 4.8, RFC 7306 section 8)
 *       and ends the connection, as an RNIC terminates the stream. The requester's future fails with
 *       {@link org.panamardma.verbs.connection.agent.AgentTerminatedException} (the RFC's error, and the
 *       {@code ibv_wc_status} a device reports for the same fault), every other request with
 *       {@code ConnectionClosedException}.</li>
 *   <li><b>Exactly once.</b> Request Identifiers are sequential; a retransmitted request is answered from the record
 *       of the last IRD requests, not executed again; anything out of sequence is refused.</li>
 *   <li><b>Order.</b> A request executes when it is delivered, so after every WRITE posted before it on the
 *       connection; requests execute and are answered in order; a READ posted after an agent atomic reads its
 *       result, and an atomic posted after a READ starts after it (RFC 7306 section 7's table).</li>
 *   <li><b>Bounded like IRD/ORD.</b> Each end executes at most its depth of requests at once for the peer and sends
 *       at most the peer's; the agent's SENDs and receive buffers are reserved on top of the application's, so
 *       they never wait for it; a peer that floods beyond the bound finds no more state than that (its extra
 *       requests end the connection with the RFC's "no buffer available").</li>
 *   <li><b>Atomicity stronger than {@code IBV_ATOMIC_HCA}.</b> The agent executes with the JVM's atomic access to
 *       native memory (a {@code VarHandle} on the region's {@code MemorySegment}: locked instructions), so an
 *       operation is atomic against every other agent operation, on any connection or process sharing the memory,
 *       and against the responder's own CPU when it uses atomic access too ({@code VarHandle} getAndAdd,
 *       compareAndSet). A device's own atomics (rxe without the agent) do not take the processor's lock and are
 *       atomic only among themselves: do not mix them with the agent's on one word.</li>
 * </ul>
 *
 * <h2>What it costs</h2>
 * A round trip through the peer's CPU instead of its device: the responder's connection poller executes the
 * request (a few microseconds on hardware; under the testbed's emulation the thread wake-ups dominate,
 * benchmarks/README.md "Benchmarks beside perftest" has the figures). Immediate data costs no round trip: a SEND with immediate data is one
 * SEND, a WRITE with immediate data a WRITE and a 12-byte SEND.
 */
package org.panamardma.verbs.connection.agent;
