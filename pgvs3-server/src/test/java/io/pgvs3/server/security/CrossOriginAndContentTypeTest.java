package io.pgvs3.server.security;

import java.util.List;
import java.util.Map;

import io.pgvs3.server.ServerTestSupport;
import io.pgvs3.test.OjsClient;
import io.pgvs3.test.OjsClient.Response;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static io.pgvs3.server.security.SecurityAssertions.assertError;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The open server on loopback (no token): a web page on another origin cannot change anything, with or without a
 * body, because mutations take only JSON and a cross-origin mutation is refused.
 */
class CrossOriginAndContentTypeTest extends ServerTestSupport {

    @BeforeEach
    void queue() {
        assertThat(http.post("/ojs/v1/jobs", Map.of("type", "t", "args", List.of(), "queue", "guarded")).status())
                .isEqualTo(201);
    }

    boolean paused() {
        var stats = http.get("/ojs/v1/queues/guarded/stats").json().path("queue");
        assertThat(stats.path("paused").isBoolean()).as(stats.toString()).isTrue();
        return stats.path("paused").asBoolean();
    }

    int jobs() {
        return jdbc.queryForObject("SELECT count(*) FROM s3p.job_locations()", Integer.class);
    }

    @Test
    void aSimpleCrossOriginPostWithTextPlainIsRefusedWith415AndWritesNothing() {
        OjsClient page = http.withHeader("Origin", "https://evil.example");
        assertError(page.postRaw("/ojs/v1/queues/guarded/pause", "{}", "text/plain"), 415, "unsupported_media_type");
        assertError(page.postRaw("/ojs/v1/queues/guarded/pause", "", "text/plain;charset=UTF-8"), 415,
                "unsupported_media_type");
        assertError(page.postRaw("/ojs/v1/queues/guarded/dlq/replay", "a=b", "application/x-www-form-urlencoded"),
                415, "unsupported_media_type");
        assertError(page.postRaw("/ojs/v1/queues/guarded/pause", "x", "multipart/form-data; boundary=x"), 415,
                "unsupported_media_type");
        int before = jobs();
        assertError(page.postRaw("/ojs/v1/jobs", "{\"type\":\"t\",\"args\":[],\"queue\":\"guarded\"}", "text/plain"),
                415, "unsupported_media_type");
        assertThat(jobs()).isEqualTo(before);
        assertThat(paused()).isFalse();
    }

    @Test
    void theSameRequestsFromAnyCallerAreRefusedWithoutAJsonContentType() {
        assertError(http.postRaw("/ojs/v1/queues/guarded/pause", "{}", "text/plain"), 415, "unsupported_media_type");
        // a body needs a content type
        assertError(http.postRaw("/ojs/v1/queues/guarded/pause", "{}", null), 415, "unsupported_media_type");
        assertError(http.send("DELETE", "/ojs/v1/queues/guarded", "x", "text/plain"), 415, "unsupported_media_type");
        assertThat(paused()).isFalse();
        assertThat(http.get("/ojs/v1/queues/guarded/stats").status()).isEqualTo(200);
    }

    @Test
    void aCrossOriginMutationWithoutABodyIsRefusedWith403() {
        OjsClient page = http.withHeader("Origin", "https://evil.example");
        assertError(page.postRaw("/ojs/v1/queues/guarded/pause", null, null), 403, "forbidden");
        assertError(page.send("DELETE", "/ojs/v1/queues/guarded", null, null), 403, "forbidden");
        assertThat(paused()).isFalse();
        // no CORS headers are granted to another origin, even on a read
        assertThat(page.get("/ojs/v1/queues").header("Access-Control-Allow-Origin")).isNull();
    }

    @Test
    void jsonContentTypesWithParametersAndSameOriginPagesAreAccepted() {
        assertThat(http.postRaw("/ojs/v1/queues/guarded/pause", null, "application/json; charset=utf-8").status())
                .isEqualTo(200);
        assertThat(http.postRaw("/ojs/v1/queues/guarded/resume", "", "application/openjobspec+json;charset=UTF-8")
                .status()).isEqualTo(200);
        assertThat(http.postRaw("/ojs/v1/jobs", "{\"type\":\"t\",\"args\":[],\"queue\":\"guarded\"}",
                "Application/JSON").status()).isEqualTo(201);
        // a request without a body or a content type (curl -X POST) is fine: browsers cannot send one cross-origin
        assertThat(http.postRaw("/ojs/v1/queues/guarded/pause", null, null).status()).isEqualTo(200);
        assertThat(paused()).isTrue();
        OjsClient samePage = http.withHeader("Origin", "http://127.0.0.1:" + port);
        assertThat(samePage.postRaw("/ojs/v1/queues/guarded/resume", null, null).status()).isEqualTo(200);
        assertThat(paused()).isFalse();
    }

    /** A request with the given Host and other headers, over a plain socket (HTTP clients set Host themselves). */
    String raw(String method, String path, String host, String... headers) throws java.io.IOException {
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", port)) {
            socket.setSoTimeout(30_000);
            StringBuilder request = new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: " + host
                    + "\r\nConnection: close\r\n");
            for (String header : headers) {
                request.append(header).append("\r\n");
            }
            socket.getOutputStream().write(request.append("\r\n").toString()
                    .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
            return new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    @Test
    void withoutATokenOnlyLoopbackHostNamesAndUnforwardedRequestsAreServed() throws Exception {
        // a page whose name was rebound to 127.0.0.1 sends its own name
        for (String host : List.of("evil.example", "evil.example:" + port, "127.0.0.1.nip.io", "")) {
            String reply = raw("GET", "/ojs/v1/queues", host);
            assertThat(reply).as(host).startsWith("HTTP/1.1 403").contains("\"code\":\"forbidden\"");
        }
        assertThat(raw("POST", "/ojs/v1/queues/guarded/pause", "evil.example:" + port)).startsWith("HTTP/1.1 403");
        assertThat(paused()).isFalse();
        for (String host : List.of("localhost", "localhost:" + port, "127.0.0.1:" + port, "LOCALHOST", "[::1]:" + port)) {
            assertThat(raw("GET", "/ojs/v1/queues", host)).as(host).startsWith("HTTP/1.1 200");
        }
        // a proxy forwarding calls from elsewhere: the open mode is for local clients only
        assertThat(raw("GET", "/ojs/v1/queues", "127.0.0.1", "X-Forwarded-For: 203.0.113.9"))
                .startsWith("HTTP/1.1 403").contains("forwarded");
        assertThat(raw("GET", "/ojs/v1/queues", "127.0.0.1", "Forwarded: for=203.0.113.9")).startsWith("HTTP/1.1 403");
        // health stays open to probes, without the details
        String health = raw("GET", "/ojs/v1/health", "evil.example");
        assertThat(health).startsWith("HTTP/1.1 200").doesNotContain("\"backend\"");
    }
}
