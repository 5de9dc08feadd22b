package io.pgvs3.server.security;

import io.pgvs3.server.ServerTestSupport;
import io.pgvs3.spring.web.security.TokenHashes;
import io.pgvs3.test.OjsClient;
import io.pgvs3.test.OjsClient.Response;
import org.junit.jupiter.api.Test;

import org.springframework.test.context.TestPropertySource;

import static io.pgvs3.server.security.SecurityAssertions.assertError;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * With {@code pgvs3.http.cors.allowed-origins}, that origin (and only it) may call the API from a browser; its
 * preflight needs no token (browsers send none), its requests do.
 */
@TestPropertySource(properties = { "pgvs3.http.cors.allowed-origins=https://ops.example",
        "pgvs3.security.tokens[0].name=ops", "pgvs3.security.tokens[0].scopes=admin",
        "pgvs3.security.tokens[0].hash=sha256:" + CorsConfiguredTest.HASH })
class CorsConfiguredTest extends ServerTestSupport {

    static final String TOKEN = "pgvs3_cors-test-token-0123456789abcdefghijklmnopq";

    // SHA-256 of TOKEN
    static final String HASH = "8f77619e5d75070c769aa82d7d300d18a43ea802a2fe4c9c73074a87bc82504d";

    @Test
    void theConfiguredOriginPassesPreflightAndMutates() {
        assertThat(TokenHashes.sha256(TOKEN)).isEqualTo(HASH);
        Response preflight = http.withHeader("Origin", "https://ops.example")
                .withHeader("Access-Control-Request-Method", "POST")
                .withHeader("Access-Control-Request-Headers", "content-type")
                .send("OPTIONS", "/ojs/v1/queues/x/pause", null, null);
        assertThat(preflight.status()).isEqualTo(200);
        assertThat(preflight.header("Access-Control-Allow-Origin")).isEqualTo("https://ops.example");

        OjsClient ops = http.withHeader("Origin", "https://ops.example");
        assertError(ops.postRaw("/ojs/v1/queues/x/pause", null, "application/json"), 401, "unauthorized");
        Response paused = ops.withBearer(TOKEN).postRaw("/ojs/v1/queues/x/pause", null, "application/json");
        assertThat(paused.status()).isEqualTo(200);
        assertThat(paused.header("Access-Control-Allow-Origin")).isEqualTo("https://ops.example");
    }

    @Test
    void aWorkerFetchFromTheConfiguredOriginGetsTheSameCorsHeadersWhateverItAccepts() {
        OjsClient ops = http.withHeader("Origin", "https://ops.example").withBearer(TOKEN);
        Response direct = ops.withHeader("Accept", "application/json").postRaw("/ojs/v1/workers/fetch",
                "{\"queues\":[\"cors-work\"]}", "application/json");
        Response viaMvc = ops.withHeader("Accept", "application/json, */*").postRaw("/ojs/v1/workers/fetch",
                "{\"queues\":[\"cors-work\"]}", "application/json");
        assertThat(direct.status()).as(direct.toString()).isEqualTo(200);
        assertThat(direct.header("Access-Control-Allow-Origin")).isEqualTo("https://ops.example");
        assertThat(direct.headers().map().keySet()).isEqualTo(viaMvc.headers().map().keySet());
        assertThat(direct.headers().allValues("Vary")).isEqualTo(viaMvc.headers().allValues("Vary"));
        assertThat(direct.text()).isEqualTo(viaMvc.text());
    }

    @Test
    void anotherOriginIsRefused() {
        Response preflight = http.withHeader("Origin", "https://evil.example")
                .withHeader("Access-Control-Request-Method", "POST")
                .send("OPTIONS", "/ojs/v1/queues/x/pause", null, null);
        assertThat(preflight.status()).isEqualTo(403);
        assertThat(preflight.header("Access-Control-Allow-Origin")).isNull();
        assertError(http.withHeader("Origin", "https://evil.example").withBearer(TOKEN)
                .postRaw("/ojs/v1/queues/x/pause", null, null), 403, "forbidden");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.queues WHERE name = 'x'", Integer.class)).isZero();
    }
}
