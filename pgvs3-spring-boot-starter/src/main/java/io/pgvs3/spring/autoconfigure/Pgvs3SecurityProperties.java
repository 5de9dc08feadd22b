package io.pgvs3.spring.autoconfigure;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Authentication of the OJS HTTP routes under {@code pgvs3.security.*}. Applies when Spring Security is on the
 * classpath (the standalone server always has it).
 */
@ConfigurationProperties("pgvs3.security")
public class Pgvs3SecurityProperties {

    /**
     * Whether requests without credentials get every scope when no token is configured at all, even though the
     * server listens on a non-loopback address. Without it such a server refuses to start.
     */
    private boolean allowAnonymous = false;

    /** Tokens given in configuration, by the SHA-256 of their value (tokens kept in the catalog come on top). */
    private List<Token> tokens = new ArrayList<>();

    public boolean isAllowAnonymous() {
        return allowAnonymous;
    }

    public void setAllowAnonymous(boolean allowAnonymous) {
        this.allowAnonymous = allowAnonymous;
    }

    public List<Token> getTokens() {
        return tokens;
    }

    public void setTokens(List<Token> tokens) {
        this.tokens = tokens;
    }

    public static class Token {

        /** A name for the token, shown in logs and in the catalog's list; unique. */
        private String name;

        /** The SHA-256 of the token as 64 hex digits, optionally prefixed with "sha256:". */
        private String hash;

        /** What the token may do: read, produce, consume, admin (admin implies the others). */
        private Set<String> scopes = new LinkedHashSet<>();

        /** Glob patterns (* and ?) of the queues the token may name; empty means every queue. */
        private List<String> queues = new ArrayList<>();

        public String getName() {
            return name;
        }

        public void setName(String name) {
            this.name = name;
        }

        public String getHash() {
            return hash;
        }

        public void setHash(String hash) {
            this.hash = hash;
        }

        public Set<String> getScopes() {
            return scopes;
        }

        public void setScopes(Set<String> scopes) {
            this.scopes = scopes;
        }

        public List<String> getQueues() {
            return queues;
        }

        public void setQueues(List<String> queues) {
            this.queues = queues;
        }
    }
}
