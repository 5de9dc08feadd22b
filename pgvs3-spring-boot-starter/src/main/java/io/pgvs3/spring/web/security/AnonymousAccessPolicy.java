package io.pgvs3.spring.web.security;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import jakarta.servlet.http.HttpServletRequest;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Decides whether requests without credentials are let in with every scope: only while no token exists at all,
 * and only when every server of the application (the API's and, on a port of its own, the management server) listens
 * on a loopback address, or with {@code pgvs3.security.allow-anonymous=true}.
 */
public class AnonymousAccessPolicy {

    private static final Log logger = LogFactory.getLog(AnonymousAccessPolicy.class);

    private static final Set<String> LOOPBACK_HOSTS = Set.of("localhost", "127.0.0.1", "[::1]");

    private final TokenRegistry tokens;
    private final boolean permitted;
    private final boolean loopback;

    /**
     * @param bindAddresses the addresses the application's servers listen on ({@code server.address}, and
     * {@code management.server.address} when the management server has a port of its own); an element is null
     * when that server listens on every interface
     * @throws UnauthenticatedExposureException when a server would listen beyond loopback with no token and no opt-in
     */
    public AnonymousAccessPolicy(TokenRegistry tokens, List<String> bindAddresses, boolean allowAnonymous) {
        this.tokens = tokens;
        List<String> exposed = bindAddresses.stream().filter(address -> !isLoopback(address)).toList();
        this.loopback = exposed.isEmpty();
        this.permitted = loopback || allowAnonymous;
        if (tokens.anyToken()) {
            return;
        }
        String where = loopback ? String.join(", ", bindAddresses) : describe(exposed.get(0));
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

    /** {@link #anonymousAllowed()} from what is known, without asking the database (see the token registry). */
    public boolean anonymousAllowedAsLastKnown() {
        return permitted && !tokens.anyTokenAsLastKnown();
    }

    /**
     * Why {@code request} may not be let in anonymously although no token exists, or null. In the open loopback
     * mode only a local client can call: a web page that rebinds its own host name to 127.0.0.1 sends its own name
     * as {@code Host}, and a proxy on the same machine forwards calls from elsewhere (and says so, usually).
     */
    public String refusal(HttpServletRequest request) {
        if (!loopback) {
            return null;
        }
        if (request.getHeader("Forwarded") != null || request.getHeader("X-Forwarded-For") != null) {
            return "a forwarded request needs a token: pgvs3 has none, so it answers local clients only";
        }
        String host = hostName(request.getHeader("Host"));
        if (host == null || !LOOPBACK_HOSTS.contains(host.toLowerCase(Locale.ROOT))) {
            return "pgvs3 has no token, so it answers only requests to localhost, 127.0.0.1 or [::1], not to Host '"
                    + request.getHeader("Host") + "'";
        }
        return null;
    }

    private static String describe(String bindAddress) {
        return bindAddress == null || bindAddress.isBlank() ? "every interface" : bindAddress;
    }

    /** The host part of a Host header (without the port), or null. */
    static String hostName(String header) {
        if (header == null || header.isBlank()) {
            return null;
        }
        String host = header.trim();
        if (host.startsWith("[")) {
            int end = host.indexOf(']');
            return end < 0 ? null : host.substring(0, end + 1);
        }
        int colon = host.indexOf(':');
        return colon < 0 ? host : host.substring(0, colon);
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
