package io.pgvs3.spring.web.security;

import java.net.InetAddress;
import java.net.UnknownHostException;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Decides whether requests without credentials are let in with every scope: only while no token exists at all,
 * and only when the server listens on a loopback address or {@code pgvs3.security.allow-anonymous=true}.
 */
public class AnonymousAccessPolicy {

    private static final Log logger = LogFactory.getLog(AnonymousAccessPolicy.class);

    private final TokenRegistry tokens;
    private final boolean permitted;

    /**
     * @param bindAddress {@code server.address}, null when the server listens on every interface
     * @throws UnauthenticatedExposureException when the server would listen beyond loopback with no token and no opt-in
     */
    public AnonymousAccessPolicy(TokenRegistry tokens, String bindAddress, boolean allowAnonymous) {
        this.tokens = tokens;
        boolean loopback = isLoopback(bindAddress);
        this.permitted = loopback || allowAnonymous;
        if (tokens.anyToken()) {
            return;
        }
        String where = bindAddress == null || bindAddress.isBlank() ? "every interface" : bindAddress;
        if (loopback) {
            logger.info("pgvs3 has no API token: the HTTP API is open to every caller on loopback (" + where
                    + ") until a token is configured");
        }
        else if (allowAnonymous) {
            logger.warn("pgvs3 has no API token and pgvs3.security.allow-anonymous=true: the HTTP API on " + where
                    + " is open to anyone who can reach it, with every scope");
        }
        else {
            throw new UnauthenticatedExposureException(where);
        }
    }

    /** Whether a request without credentials is let in now. */
    public boolean anonymousAllowed() {
        return permitted && !tokens.anyToken();
    }

    static boolean isLoopback(String bindAddress) {
        if (bindAddress == null || bindAddress.isBlank()) {
            return false;
        }
        try {
            return InetAddress.getByName(bindAddress.trim()).isLoopbackAddress();
        }
        catch (UnknownHostException ex) {
            return false;
        }
    }
}
