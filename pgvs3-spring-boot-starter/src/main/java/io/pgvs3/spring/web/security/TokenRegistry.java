package io.pgvs3.spring.web.security;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import org.springframework.dao.DataAccessException;

/**
 * Resolves a presented token to its identity: tokens given in configuration first, then the catalog.
 * <p>
 * A token found in the catalog is remembered for {@link #CATALOG_CHECK_INTERVAL}, so that a client sending many
 * requests does not cost a catalog query each. A token revoked through this instance stops working at once; one
 * revoked through another instance sharing the database, within that interval. Unknown tokens are not remembered:
 * a token created through another instance works at once, and guessing fills no memory.
 */
public class TokenRegistry {

    /**
     * How long the answer to "is there any token in the catalog", and a token found there, are reused before the
     * catalog is asked again.
     */
    static final Duration CATALOG_CHECK_INTERVAL = Duration.ofSeconds(2);

    /** Most catalog tokens remembered at once; beyond it the memory starts afresh. */
    static final int MAX_REMEMBERED = 1024;

    private record Found(ApiToken token, long at) {
    }

    private final Map<String, ApiToken> configured;
    private final CatalogTokenStore catalog;
    private final LongSupplier nanoTime;
    private final Map<String, Found> found = new ConcurrentHashMap<>();
    /** Counts {@link #catalogChanged()}: a lookup that raced a change does not remember what it read before it. */
    private final AtomicLong changes = new AtomicLong();

    private volatile boolean catalogChecked;
    private volatile long catalogCheckedAt;
    private volatile boolean catalogHasTokens;

    /** @param configured tokens by the SHA-256 hex of their value */
    public TokenRegistry(Map<String, ApiToken> configured, CatalogTokenStore catalog) {
        this(configured, catalog, System::nanoTime);
    }

    TokenRegistry(Map<String, ApiToken> configured, CatalogTokenStore catalog, LongSupplier nanoTime) {
        this.configured = Map.copyOf(configured);
        this.catalog = catalog;
        this.nanoTime = nanoTime;
    }

    public Optional<ApiToken> resolve(String value) {
        if (value == null || value.isEmpty() || value.length() > 512) {
            return Optional.empty();
        }
        String hash = TokenHashes.sha256(value);
        ApiToken token = configured.get(hash);
        return token != null ? Optional.of(token) : fromCatalog(hash);
    }

    private Optional<ApiToken> fromCatalog(String hash) {
        long now = nanoTime.getAsLong();
        Found remembered = found.get(hash);
        if (remembered != null && now - remembered.at() <= CATALOG_CHECK_INTERVAL.toNanos()) {
            return Optional.of(remembered.token());
        }
        long changesBefore = changes.get();
        Optional<ApiToken> token = catalog.findByHash(hash);
        if (token.isPresent()) {
            if (found.size() >= MAX_REMEMBERED) {
                found.clear();
            }
            found.put(hash, new Found(token.get(), now));
            // a change counted after this put is followed by its clear; one counted before it is seen here
            if (changes.get() != changesBefore) {
                found.remove(hash);
            }
        }
        else {
            found.remove(hash);
        }
        return token;
    }

    /**
     * Whether any token exists at all; while none does, requests may be anonymous (see the access policy). When the
     * catalog cannot be asked, tokens may exist: the answer is yes.
     */
    public boolean anyToken() {
        if (!configured.isEmpty()) {
            return true;
        }
        long now = nanoTime.getAsLong();
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

    /** Forgets what was learned from the catalog, after this instance created or revoked a token. */
    public void catalogChanged() {
        catalogChecked = false;
        changes.incrementAndGet();
        found.clear();
    }

    public boolean hasConfiguredTokens() {
        return !configured.isEmpty();
    }
}
