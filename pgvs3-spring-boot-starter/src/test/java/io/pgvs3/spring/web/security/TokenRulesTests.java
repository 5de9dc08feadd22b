package io.pgvs3.spring.web.security;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class TokenRulesTests {

    @Test
    void everyReadNeedsReadAndAdminPathsNeedAdmin() {
        assertThat(RouteScopes.of("GET", "/ojs/v1/jobs/abc").scope()).isEqualTo(Scope.READ);
        assertThat(RouteScopes.of("GET", "/ojs/v1/events").scope()).isEqualTo(Scope.READ);
        assertThat(RouteScopes.of("GET", "/dashboard/index.html").scope()).isEqualTo(Scope.READ);
        assertThat(RouteScopes.of("GET", "/ojs/v1/admin/tokens").scope()).isEqualTo(Scope.ADMIN);
        assertThat(RouteScopes.of("POST", "/ojs/v1/admin/reset").scope()).isEqualTo(Scope.ADMIN);
    }

    @Test
    void mutationsNeedTheirScope() {
        assertThat(RouteScopes.of("POST", "/ojs/v1/jobs").scope()).isEqualTo(Scope.PRODUCE);
        assertThat(RouteScopes.of("POST", "/ojs/v1/jobs/batch").scope()).isEqualTo(Scope.PRODUCE);
        assertThat(RouteScopes.of("POST", "/ojs/v1/workflows").scope()).isEqualTo(Scope.PRODUCE);
        assertThat(RouteScopes.of("DELETE", "/ojs/v1/jobs/abc").scope()).isEqualTo(Scope.PRODUCE);
        assertThat(RouteScopes.of("DELETE", "/ojs/v1/workflows/abc").scope()).isEqualTo(Scope.PRODUCE);
        assertThat(RouteScopes.of("POST", "/ojs/v1/queues/q/messages").scope()).isEqualTo(Scope.PRODUCE);
        assertThat(RouteScopes.of("POST", "/ojs/v1/queues/q/messages/batch").scope()).isEqualTo(Scope.PRODUCE);

        for (String path : List.of("/ojs/v1/workers/fetch", "/ojs/v1/workers/ack", "/ojs/v1/workers/nack",
                "/ojs/v1/workers/heartbeat", "/ojs/v1/streams/ack", "/ojs/v1/streams/nack",
                "/ojs/v1/queues/q/consumers", "/ojs/v1/queues/q/receive")) {
            assertThat(RouteScopes.of("POST", path).scope()).as(path).isEqualTo(Scope.CONSUME);
        }
        assertThat(RouteScopes.of("DELETE", "/ojs/v1/queues/q/consumers/c").scope()).isEqualTo(Scope.CONSUME);
        assertThat(RouteScopes.of("GET", "/ojs/v1/queues/q/job-events").scope()).isEqualTo(Scope.READ);

        for (String path : List.of("/ojs/v1/queues/q/pause", "/ojs/v1/queues/q/resume", "/ojs/v1/queues/q/config",
                "/ojs/v1/queues/q/dlq/replay", "/ojs/v1/queues/q/dlq/7/replay", "/ojs/v1/dead-letter/x/retry",
                "/ojs/v1/cron", "/ojs/v1/unknown", "/ojs/v1/queues/q/job-events")) {
            assertThat(RouteScopes.of("POST", path).scope()).as(path).isEqualTo(Scope.ADMIN);
        }
        for (String path : List.of("/ojs/v1/queues/q", "/ojs/v1/queues/q/dlq", "/ojs/v1/dead-letter/x",
                "/ojs/v1/cron/nightly", "/ojs/v1/jobs/a/b", "/ojs/v1/queues/q/job-events")) {
            assertThat(RouteScopes.of("DELETE", path).scope()).as(path).isEqualTo(Scope.ADMIN);
        }
    }

    @Test
    void theQueueOfAPathIsDecoded() {
        assertThat(RouteScopes.of("GET", "/ojs/v1/queues/orders-eu/stats").queue()).isEqualTo("orders-eu");
        assertThat(RouteScopes.of("DELETE", "/ojs/v1/queues/a%2Fb").queue()).isEqualTo("a/b");
        assertThat(RouteScopes.of("GET", "/ojs/v1/queues/a+b/info").queue()).isEqualTo("a+b");
        assertThat(RouteScopes.of("GET", "/ojs/v1/queues/%zz/info").queue()).isEqualTo("%zz");
        assertThat(RouteScopes.of("GET", "/ojs/v1/queues").queue()).isNull();
        assertThat(RouteScopes.of("GET", "/ojs/v1/queues/").queue()).isNull();
        assertThat(RouteScopes.of("POST", "/ojs/v1/jobs").queue()).isNull();
    }

    @Test
    void adminImpliesEveryScope() {
        ApiToken admin = new ApiToken("a", Set.of(Scope.ADMIN), List.of());
        assertThat(EnumSet.allOf(Scope.class)).allMatch(admin::has);
        ApiToken reader = new ApiToken("r", Set.of(Scope.READ), List.of());
        assertThat(reader.has(Scope.READ)).isTrue();
        assertThat(reader.has(Scope.PRODUCE)).isFalse();
        assertThat(Scope.parse(List.of("READ", " consume "))).containsExactlyInAnyOrder(Scope.READ, Scope.CONSUME);
        assertThatIllegalArgumentException().isThrownBy(() -> Scope.parse(List.of("root")));
        assertThatIllegalArgumentException().isThrownBy(() -> Scope.parse(List.of()));
    }

    @Test
    void queuePatternsAreGlobsWithEverythingElseLiteral() {
        ApiToken token = new ApiToken("t", Set.of(Scope.READ), List.of("orders-*", "audit", "q?", "a.b"));
        assertThat(token.allowsQueue("orders-eu")).isTrue();
        assertThat(token.allowsQueue("orders-")).isTrue();
        assertThat(token.allowsQueue("audit")).isTrue();
        assertThat(token.allowsQueue("q1")).isTrue();
        assertThat(token.allowsQueue("a.b")).isTrue();
        assertThat(token.allowsQueue("axb")).isFalse();
        assertThat(token.allowsQueue("q12")).isFalse();
        assertThat(token.allowsQueue("audit2")).isFalse();
        assertThat(token.allowsQueue("my-orders-eu")).isFalse();
        assertThat(new ApiToken("u", Set.of(Scope.READ), List.of()).allowsQueue("anything")).isTrue();
        assertThatIllegalArgumentException().isThrownBy(() -> new ApiToken("x", Set.of(Scope.READ), List.of(" ")));
    }

    @Test
    void tokensAreRandomAndTheirHashIsSha256Hex() {
        String token = TokenHashes.newToken();
        assertThat(token).startsWith("pgvs3_").hasSize(6 + 43).isNotEqualTo(TokenHashes.newToken());
        assertThat(TokenHashes.sha256("abc"))
                .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        String hash = TokenHashes.sha256(token);
        assertThat(TokenHashes.normalize("sha256:" + hash.toUpperCase())).isEqualTo(hash);
        assertThat(TokenHashes.normalize(" " + hash + " ")).isEqualTo(hash);
        assertThatIllegalArgumentException().isThrownBy(() -> TokenHashes.normalize("md5:abc"));
        assertThatIllegalArgumentException().isThrownBy(() -> TokenHashes.normalize(token));
        assertThatIllegalArgumentException().isThrownBy(() -> TokenHashes.normalize(null));
    }

    @Test
    void bearerAndBasicCarryTheToken() {
        assertThat(TokenAuthenticationFilter.presented("Bearer abc")).contains("abc");
        assertThat(TokenAuthenticationFilter.presented("bearer  abc ")).contains("abc");
        String basic = Base64.getEncoder().encodeToString("me:tok:en".getBytes(StandardCharsets.UTF_8));
        assertThat(TokenAuthenticationFilter.presented("Basic " + basic)).contains("tok:en");
        assertThat(TokenAuthenticationFilter.presented("Basic !!!")).isEmpty();
        assertThat(TokenAuthenticationFilter.presented("Basic " + Base64.getEncoder().encodeToString("x".getBytes())))
                .isEmpty();
        assertThat(TokenAuthenticationFilter.presented("Bearer")).isEmpty();
        assertThat(TokenAuthenticationFilter.presented("Token abc")).isEmpty();
    }

    @Test
    void anAddressIsLoopbackOnlyWhenItSaysSo() {
        assertThat(AnonymousAccessPolicy.isLoopback("127.0.0.1")).isTrue();
        assertThat(AnonymousAccessPolicy.isLoopback("::1")).isTrue();
        assertThat(AnonymousAccessPolicy.isLoopback("127.0.0.2")).isTrue();
        assertThat(AnonymousAccessPolicy.isLoopback(null)).isFalse();
        assertThat(AnonymousAccessPolicy.isLoopback("")).isFalse();
        assertThat(AnonymousAccessPolicy.isLoopback("0.0.0.0")).isFalse();
        assertThat(AnonymousAccessPolicy.isLoopback("::")).isFalse();
        assertThat(AnonymousAccessPolicy.isLoopback("10.1.2.3")).isFalse();
    }

    @Test
    void theHostNameOfAHostHeaderLeavesThePortOut() {
        assertThat(AnonymousAccessPolicy.hostName("localhost:8080")).isEqualTo("localhost");
        assertThat(AnonymousAccessPolicy.hostName("127.0.0.1")).isEqualTo("127.0.0.1");
        assertThat(AnonymousAccessPolicy.hostName("[::1]:8080")).isEqualTo("[::1]");
        assertThat(AnonymousAccessPolicy.hostName("[::1")).isNull();
        assertThat(AnonymousAccessPolicy.hostName(" ")).isNull();
        assertThat(AnonymousAccessPolicy.hostName(null)).isNull();
    }
}
