package org.panamardma.rpcrdma.client;

import java.net.InetSocketAddress;
import java.net.URI;
import java.util.Locale;
import java.util.Objects;

/**
 * Where an {@link org.panamardma.oncrpc.RpcClient} connects, from a URI: {@code tcp://host:port} or
 * {@code rdma://host:port} (host a name, an IPv4 address or a bracketed IPv6 address). Nothing else is accepted:
 * no user info, path, query or fragment, and the port must be given (there is no default that would be right for
 * every program: NFS over RDMA uses 20049, the portmapper 111, a test server anything).
 *
 * @param transport which transport
 * @param host the host as written (brackets removed)
 * @param port 1 to 65535
 */
public record RpcEndpoint(Transport transport, String host, int port) {
    /** The transports a URI can name, by scheme. */
    public enum Transport {
        /** {@code tcp://}: ONC RPC over TCP with record marking (RFC 5531 section 11). */
        TCP,
        /** {@code rdma://}: RPC-over-RDMA version 1 (RFC 8166) over an rdma_cm reliable connection. */
        RDMA;

        /** {@return the URI scheme} */
        public String scheme() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * Checks the parts.
     *
     * @throws IllegalArgumentException if the host is empty or the port not in [1, 65535]
     */
    public RpcEndpoint {
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(host, "host");
        if (host.isEmpty()) {
            throw new IllegalArgumentException("empty host");
        }
        if (port < 1 || port > 65_535) {
            throw new IllegalArgumentException("port " + port + " not in [1, 65535]");
        }
    }

    /**
     * Parses {@code tcp://host:port} or {@code rdma://host:port}.
     *
     * @param uri the URI
     * @return the endpoint it names
     * @throws IllegalArgumentException naming what is wrong: another scheme, no host, no port, or a part an
     *     endpoint does not have
     */
    public static RpcEndpoint parse(URI uri) {
        Objects.requireNonNull(uri, "uri");
        String scheme = uri.getScheme();
        if (scheme == null) {
            throw new IllegalArgumentException(uri + ": no scheme; use tcp://host:port or rdma://host:port");
        }
        Transport transport = switch (scheme.toLowerCase(Locale.ROOT)) {
            case "tcp" -> Transport.TCP;
            case "rdma" -> Transport.RDMA;
            default ->
                throw new IllegalArgumentException(
                        uri + ": unsupported scheme '" + scheme + "'; use tcp://host:port or rdma://host:port");
        };
        if (uri.isOpaque()) {
            throw new IllegalArgumentException(
                    uri + ": not host:port after the scheme; use " + scheme + "://host:port");
        }
        if (uri.getHost() == null) {
            // java.net.URI leaves host null for an empty or unparseable authority (e.g. an underscore in a name)
            throw new IllegalArgumentException(
                    uri + ": no host" + (uri.getRawAuthority() != null ? " in '" + uri.getRawAuthority() + "'" : ""));
        }
        if (uri.getRawUserInfo() != null) {
            throw new IllegalArgumentException(uri + ": user info is not supported");
        }
        if (uri.getPort() == -1) {
            throw new IllegalArgumentException(uri + ": no port; an RPC endpoint needs one (NFS over RDMA: 20049)");
        }
        if (uri.getRawPath() != null
                && !uri.getRawPath().isEmpty()
                && !uri.getRawPath().equals("/")) {
            throw new IllegalArgumentException(uri + ": a path is not supported");
        }
        if (uri.getRawQuery() != null) {
            throw new IllegalArgumentException(uri + ": a query is not supported");
        }
        if (uri.getRawFragment() != null) {
            throw new IllegalArgumentException(uri + ": a fragment is not supported");
        }
        String host = uri.getHost();
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        return new RpcEndpoint(transport, host, uri.getPort());
    }

    /** {@return the socket address (resolving the host name)} */
    public InetSocketAddress address() {
        return new InetSocketAddress(host, port);
    }

    @Override
    public String toString() {
        return transport.scheme() + "://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
}
