package io.pgvs3.spring.web.security;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import org.springframework.dao.DataAccessException;

/**
 * Resolves a presented token to its identity: tokens given in configuration first, then the catalog.
 */
public class TokenRegistry {

    /** How long the answer to "is there any token in the catalog" is reused before it is asked again. */
    static final Duration CATALOG_CHECK_INTERVAL = Duration.ofSeconds(2);

    private final Map<String, ApiToken> configured;
    private final CatalogTokenStore catalog;

    private volatile boolean catalogChecked;
    private volatile long catalogCheckedAt;
    private volatile boolean catalogHasTokens;

    /** @param configured tokens by the SHA-256 hex of their value */
    public TokenRegistry(Map<String, ApiToken> configured, CatalogTokenStore catalog) {
        this.configured = Map.copyOf(configured);
        this.catalog = catalog;
    }

    public Optional<ApiToken> resolve(String value) {
        if (value == null || value.isEmpty() || value.length() > 512) {
            return Optional.empty();
        }
        String hash = TokenHashes.sha256(value);
        ApiToken token = configured.get(hash);
        return token != null ? Optional.of(token) : catalog.findByHash(hash);
    }

    /**
     * Whether any token exists at all; while none does, requests may be anonymous (see the access policy). When the
     * catalog cannot be asked, tokens may exist: the answer is yes.
     */
    public boolean anyToken() {
        if (!configured.isEmpty()) {
            return true;
        }
        long now = System.nanoTime();
        if (!catalogChecked || now - catalogCheckedAt > CATALOG_CHECK_INTERVAL.toNanos()) {
            try {
                catalogHasTokens = catalog.any();
            }
            catch (DataAccessException ex) {
                catalogChecked = false;
                return true;
            }
            catalogCheckedAt = now;
            catalogChecked = true;
        }
        return catalogHasTokens;
    }

    /**
     * {@link #anyToken()} as last learned, without asking the catalog: yes when it was never learned, or was
     * forgotten after a change. For the open routes, which must answer even when the database does not.
     */
    public boolean anyTokenAsLastKnown() {
        return !configured.isEmpty() || !catalogChecked || catalogHasTokens;
    }

    /** Forgets the cached catalog answer, after this instance created or revoked a token. */
    public void catalogChanged() {
        catalogChecked = false;
    }

    public boolean hasConfiguredTokens() {
        return !configured.isEmpty();
    }
}
