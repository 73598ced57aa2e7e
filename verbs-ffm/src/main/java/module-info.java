/**
 * Typed, allocation-free verbs and rdma_cm over libibverbs and librdmacm, bound with FFM.
 *
 * <p>The API is {@code org.panamardma.verbs} (devices, contexts, protection domains, memory regions, completion
 * queues, queue pairs), {@code .cm} (rdma_cm), {@code .connection} (listen/connect by address, futures; {@code
 * .connection.agent}: RFC 7306's atomics and immediate data over SENDs where the device lacks them) and
 * {@code .extensions} (RFC 7306 masked atomics, FLUSH, ATOMIC WRITE, VERIFY). Exported to {@code org.panamardma.rpcrdma}
 * only: {@code .trusted} (spans of caller memory for a registration cache, which FFM would restrict). Not exported:
 * {@code .ffi} (the raw
 * bindings: layouts, downcall handles, native pointers) and {@code .internal} (what the cm package needs of the verbs
 * objects' insides). The command-line tool is an application of this module, in a module of its own
 * ({@code org.panamardma.rdmatool}, the {@code rdma-tool} artifact).
 *
 * <p>The module calls restricted FFM methods (it loads libibverbs and librdmacm): grant it native access with
 * {@code --enable-native-access=org.panamardma.verbs} (on the class path: {@code ALL-UNNAMED}).
 */
// "module": the qualified export names org.panamardma.rpcrdma, which is not on the path when this module compiles
@SuppressWarnings("module")
module org.panamardma.verbs {
    // logging API only: the application binds it
    requires org.slf4j;

    exports org.panamardma.verbs;
    exports org.panamardma.verbs.cm;
    exports org.panamardma.verbs.connection;
    exports org.panamardma.verbs.connection.agent;
    exports org.panamardma.verbs.extensions;
    // Spans makes segments larger (a restricted operation of FFM) on this module's native access: only for the
    // project's own modules, never for code that was not itself granted native access. Callbacks (a completion
    // callback's failure logged, not lost) is shared with them here too: a helper, not API
    exports org.panamardma.verbs.trusted to
            org.panamardma.rpcrdma;
}
