package io.pgvs3.spring.web.security;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;

class TokenRegistryTests {

    private static final String VALUE = "pgvs3_catalog-token";
    private static final ApiToken TOKEN = new ApiToken("ci", Set.of(Scope.READ), List.of());

    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final FakeCatalog catalog = new FakeCatalog();
    private final TokenRegistry registry = new TokenRegistry(Map.of(), catalog, clock::get);

    @Test
    void aCatalogTokenIsLookedUpOnceWithinTheCheckInterval() {
        catalog.tokens.put(TokenHashes.sha256(VALUE), TOKEN);

        for (int i = 0; i < 50; i++) {
            assertThat(registry.resolve(VALUE)).contains(TOKEN);
        }
        assertThat(catalog.lookups).hasValue(1);

        clock.addAndGet(TokenRegistry.CATALOG_CHECK_INTERVAL.toNanos() + 1);
        assertThat(registry.resolve(VALUE)).contains(TOKEN);
        assertThat(catalog.lookups).hasValue(2);
    }

    @Test
    void aTokenRevokedElsewhereStopsWorkingAfterTheCheckIntervalAndAtOnceWhenRevokedHere() {
        catalog.tokens.put(TokenHashes.sha256(VALUE), TOKEN);
        assertThat(registry.resolve(VALUE)).contains(TOKEN);

        // revoked by another instance: this one still knows it until the interval has passed
        catalog.tokens.clear();
        assertThat(registry.resolve(VALUE)).contains(TOKEN);
        clock.addAndGet(TokenRegistry.CATALOG_CHECK_INTERVAL.toNanos() + 1);
        assertThat(registry.resolve(VALUE)).isEmpty();

        // revoked through this instance: forgotten at once
        catalog.tokens.put(TokenHashes.sha256(VALUE), TOKEN);
        assertThat(registry.resolve(VALUE)).contains(TOKEN);
        catalog.tokens.clear();
        registry.catalogChanged();
        assertThat(registry.resolve(VALUE)).isEmpty();
    }

    @Test
    void unknownTokensAreAskedForEveryTimeSoThatANewTokenWorksAtOnce() {
        assertThat(registry.resolve(VALUE)).isEmpty();
        assertThat(registry.resolve(VALUE)).isEmpty();
        assertThat(catalog.lookups).hasValue(2);

        catalog.tokens.put(TokenHashes.sha256(VALUE), TOKEN);
        assertThat(registry.resolve(VALUE)).contains(TOKEN);
    }

    @Test
    void aLookupThatRacedARevocationHereDoesNotRememberTheToken() {
        catalog.tokens.put(TokenHashes.sha256(VALUE), TOKEN);
        // the revocation commits and is announced while the lookup's answer is on its way back
        catalog.duringLookup = () -> {
            catalog.tokens.clear();
            registry.catalogChanged();
        };
        assertThat(registry.resolve(VALUE)).contains(TOKEN);
        catalog.duringLookup = () -> { };

        assertThat(registry.resolve(VALUE)).isEmpty();
    }

    @Test
    void configuredTokensNeverAskTheCatalog() {
        TokenRegistry withConfigured = new TokenRegistry(Map.of(TokenHashes.sha256(VALUE), TOKEN), catalog,
                clock::get);
        assertThat(withConfigured.resolve(VALUE)).contains(TOKEN);
        assertThat(catalog.lookups).hasValue(0);
    }

    /** A catalog without a database: the data source is never connected to, as every query is overridden. */
    private static final class FakeCatalog extends CatalogTokenStore {

        final Map<String, ApiToken> tokens = new HashMap<>();
        final AtomicInteger lookups = new AtomicInteger();
        Runnable duringLookup = () -> { };

        FakeCatalog() {
            super(new DriverManagerDataSource("jdbc:postgresql://127.0.0.1:1/never-connected"));
        }

        @Override
        public Optional<ApiToken> findByHash(String hash) {
            lookups.incrementAndGet();
            Optional<ApiToken> token = Optional.ofNullable(tokens.get(hash));
            duringLookup.run();
            return token;
        }

        @Override
        public boolean any() {
            return !tokens.isEmpty();
        }
    }
}
