package io.pgvs3.server.security;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;

import io.pgvs3.server.ServerTestSupport;
import io.pgvs3.spring.web.security.TokenHashes;
import io.pgvs3.test.SlowHttp;
import io.pgvs3.test.SlowHttp.Reply;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A body that arrives after its headers (a slow client, chunks, a large upload) is authenticated, authorised and
 * guarded like any other: a valid token gets its answer, a wrong one 401, a token outside its queue patterns 403, and
 * a browser's cross-origin form 415, each without anything written.
 */
class SlowBodyAuthenticationTest extends ServerTestSupport {

    static final String PRODUCER = TokenHashes.newToken();
    static final String ORDERS = TokenHashes.newToken();
    static final String ADMIN = TokenHashes.newToken();

    @DynamicPropertySource
    static void tokens(DynamicPropertyRegistry registry) {
        TokenAuthenticationTest.token(registry, 0, "producer", PRODUCER, "produce", null);
        TokenAuthenticationTest.token(registry, 1, "orders", ORDERS, "produce,consume,read", "orders-*");
        TokenAuthenticationTest.token(registry, 2, "ops", ADMIN, "admin", null);
    }

    SlowHttp slow;

    @BeforeEach
    void slowClient() {
        slow = new SlowHttp(port);
    }

    int jobs() {
        return jdbc.queryForObject("SELECT count(*) FROM s3p.job_locator", Integer.class);
    }

    static Map<String, String> json(String token) {
        return Map.of("Content-Type", "application/json", "Authorization", "Bearer " + token);
    }

    static String job(String queue) {
        return "{\"type\":\"slow.auth\",\"queue\":\"" + queue + "\",\"args\":[\"" + "x".repeat(20_000) + "\"]}";
    }

    @Test
    void aValidTokenWithABodySentInPiecesOrChunksIsServed() {
        int before = jobs();
        Reply pieces = slow.post("/ojs/v1/jobs", json(PRODUCER), job("work"), 100);
        assertThat(pieces.status()).as(pieces.text()).isEqualTo(201);
        assertThat(pieces.body()).contains("slow.auth");
        Reply chunks = slow.postChunked("/ojs/v1/jobs", json(PRODUCER), job("work"), 50);
        assertThat(chunks.status()).as(chunks.text()).isEqualTo(201);
        Reply limited = slow.post("/ojs/v1/jobs", json(ORDERS), job("orders-eu"), 100);
        assertThat(limited.status()).as(limited.text()).isEqualTo(201);
        assertThat(jobs()).isEqualTo(before + 3);
    }

    @Test
    void aWrongTokenOrAQueueOutsideThePatternsIsRefusedAndWritesNothing() {
        int before = jobs();
        Reply wrong = slow.post("/ojs/v1/jobs", json("pgvs3_wrong"), job("work"), 100);
        assertThat(wrong.status()).as(wrong.text()).isEqualTo(401);
        assertThat(wrong.body()).contains("\"code\":\"unauthorized\"");
        Reply none = slow.post("/ojs/v1/jobs", Map.of("Content-Type", "application/json"), job("work"), 100);
        assertThat(none.status()).as(none.text()).isEqualTo(401);
        // the queue is in the body, which came late: it is checked all the same
        Reply outside = slow.post("/ojs/v1/jobs", json(ORDERS), job("billing"), 100);
        assertThat(outside.status()).as(outside.text()).isEqualTo(403);
        assertThat(outside.body()).contains("billing");
        Reply outsideChunked = slow.postChunked("/ojs/v1/jobs", json(ORDERS), job("billing"), 50);
        assertThat(outsideChunked.status()).as(outsideChunked.text()).isEqualTo(403);
        assertThat(jobs()).isEqualTo(before);
    }

    @Test
    void aCrossOriginFormWithALargeBodySentSlowlyIsRefusedAndChangesNothing() {
        assertThat(http.withBearer(ADMIN).post("/ojs/v1/jobs", Map.of("type", "t", "queue", "victim",
                "args", java.util.List.of())).status()).isEqualTo(201);
        int before = jobs();
        String basic = "Basic " + Base64.getEncoder().encodeToString(("u:" + ADMIN).getBytes(StandardCharsets.UTF_8));
        String form = "a=" + "b".repeat(70_000);
        for (String path : new String[] { "/ojs/v1/queues/victim/pause", "/ojs/v1/jobs" }) {
            Reply reply = slow.post(path, Map.of("Content-Type", "application/x-www-form-urlencoded",
                    "Origin", "https://evil.example", "Authorization", basic), form, 100);
            assertThat(reply.status()).as(reply.text()).isEqualTo(415);
        }
        assertThat(http.withBearer(ADMIN).get("/ojs/v1/queues/victim/stats").json().path("queue").path("paused")
                .asBoolean()).isFalse();
        assertThat(jobs()).isEqualTo(before);
    }
}
