package io.pgvs3.spring.web.security;

/** Thrown at startup when the HTTP API would be reachable beyond loopback with no token and no opt-in. */
public class UnauthenticatedExposureException extends IllegalStateException {

    private final String address;

    public UnauthenticatedExposureException(String address) {
        super("pgvs3 refuses to serve its HTTP API on " + address + " without authentication: configure a token"
                + " (pgvs3.security.tokens[0].name, .hash, .scopes), bind to loopback (server.address=127.0.0.1),"
                + " or set pgvs3.security.allow-anonymous=true");
        this.address = address;
    }

    public String address() {
        return address;
    }
}
