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
        return jdbc.queryForObject("SELECT count(*) FROM s3p.job_locator", Integer.class);
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
}
