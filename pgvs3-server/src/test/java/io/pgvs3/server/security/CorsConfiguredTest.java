package io.pgvs3.server.security;

import io.pgvs3.server.ServerTestSupport;
import io.pgvs3.test.OjsClient;
import io.pgvs3.test.OjsClient.Response;
import org.junit.jupiter.api.Test;

import org.springframework.test.context.TestPropertySource;

import static io.pgvs3.server.security.SecurityAssertions.assertError;
import static org.assertj.core.api.Assertions.assertThat;

/** With {@code pgvs3.http.cors.allowed-origins}, that origin (and only it) may call the API from a browser. */
@TestPropertySource(properties = "pgvs3.http.cors.allowed-origins=https://ops.example")
class CorsConfiguredTest extends ServerTestSupport {

    @Test
    void theConfiguredOriginPassesPreflightAndMutates() {
        Response preflight = http.withHeader("Origin", "https://ops.example")
                .withHeader("Access-Control-Request-Method", "POST")
                .withHeader("Access-Control-Request-Headers", "content-type")
                .send("OPTIONS", "/ojs/v1/queues/x/pause", null, null);
        assertThat(preflight.status()).isEqualTo(200);
        assertThat(preflight.header("Access-Control-Allow-Origin")).isEqualTo("https://ops.example");

        OjsClient ops = http.withHeader("Origin", "https://ops.example");
        Response paused = ops.postRaw("/ojs/v1/queues/x/pause", null, "application/json");
        assertThat(paused.status()).isEqualTo(200);
        assertThat(paused.header("Access-Control-Allow-Origin")).isEqualTo("https://ops.example");
    }

    @Test
    void anotherOriginIsRefused() {
        Response preflight = http.withHeader("Origin", "https://evil.example")
                .withHeader("Access-Control-Request-Method", "POST")
                .send("OPTIONS", "/ojs/v1/queues/x/pause", null, null);
        assertThat(preflight.status()).isEqualTo(403);
        assertThat(preflight.header("Access-Control-Allow-Origin")).isNull();
        assertError(http.withHeader("Origin", "https://evil.example").postRaw("/ojs/v1/queues/x/pause", null, null),
                403, "forbidden");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.queues WHERE name = 'x'", Integer.class)).isZero();
    }
}
