package io.pgvs3.server;

import io.pgvs3.test.OjsClient.Response;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

class FoundationHttpTest extends ServerTestSupport {

    @BeforeEach
    void reset() {
        assertThat(http.post("/ojs/v1/admin/reset", "").status()).isEqualTo(200);
    }

    @Test
    void healthAnswersWithBackendStatusAndTheOjsHeaders() {
        Response health = http.get("/ojs/v1/health");
        assertThat(health.status()).isEqualTo(200);
        assertThat(health.json().path("status").asString()).isEqualTo("ok");
        assertThat(health.json().path("backend").path("status").asString()).isEqualTo("ok");
        assertThat(health.json().path("backend").path("latency_ms").isNumber()).isTrue();
        assertOjsHeaders(health);
    }

    @Test
    void manifestDescribesTheImplementation() {
        Response manifest = http.get("/ojs/manifest");
        assertThat(manifest.status()).isEqualTo(200);
        assertThat(manifest.json().path("specversion").asString()).isEqualTo("1.0");
        assertThat(manifest.json().path("implementation").path("name").asString()).isEqualTo("pgvs3");
        assertOjsHeaders(manifest);
    }

    @Test
    void unknownRoutesAnswer404WithTheErrorBody() {
        Response missing = http.get("/ojs/v1/no-such-route");
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.errorCode()).isEqualTo("not_found");
        assertErrorBody(missing);
        assertOjsHeaders(missing);

        Response elsewhere = http.get("/favicon.ico");
        assertThat(elsewhere.status()).isEqualTo(404);
        assertThat(elsewhere.errorCode()).isEqualTo("not_found");
    }

    @Test
    void aClientRequestIdIsEchoed() throws Exception {
        var request = java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port + "/ojs/v1/health"))
                .header("X-Request-Id", "client-chosen-42").build();
        var response = java.net.http.HttpClient.newHttpClient().send(request,
                java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(response.headers().firstValue("X-Request-Id")).hasValue("client-chosen-42");
    }

    @Test
    void queuesAreListedWithPaginationAndDeleted() {
        for (String name : new String[] { "alpha", "beta", "gamma" }) {
            jdbc.queryForObject("SELECT s3p.ensure_queue_schema(?)", String.class, name);
        }
        Response page = http.get("/ojs/v1/queues?limit=2&offset=0");
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.json().path("queues")).hasSize(2);
        assertThat(page.json().path("queues").get(0).path("name").asString()).isEqualTo("alpha");
        assertThat(page.json().path("pagination").path("total").asLong()).isEqualTo(3);
        assertThat(page.json().path("pagination").path("has_more").asBoolean()).isTrue();

        Response deleted = http.delete("/ojs/v1/queues/beta");
        assertThat(deleted.status()).isEqualTo(200);
        assertThat(deleted.json().path("deleted").asBoolean()).isTrue();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM pg_namespace WHERE nspname = 's3q_beta'", Integer.class)).isZero();

        Response again = http.delete("/ojs/v1/queues/beta");
        assertThat(again.status()).isEqualTo(404);
        assertErrorBody(again);
    }

    @ParameterizedTest
    @ValueSource(strings = { "UPPER", "under_score", "-lead", "x%3By", "this-queue-name-is-far-too-long-for-a-postgresql-identifier-x" })
    void badQueueNamesAre400AndCreateNothing(String name) {
        Response response = http.delete("/ojs/v1/queues/" + name);
        assertThat(response.status()).isEqualTo(400);
        assertThat(response.errorCode()).isEqualTo("invalid_request");
        assertErrorBody(response);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.queues", Integer.class)).isZero();
    }

    @Test
    void badPaginationIs400() {
        Response response = http.get("/ojs/v1/queues?limit=abc");
        assertThat(response.status()).isEqualTo(400);
        assertErrorBody(response);
        assertThat(http.get("/ojs/v1/queues?limit=0").status()).isEqualTo(400);
    }

    @Test
    void wrongMethodIs405WithTheErrorBody() {
        Response response = http.delete("/ojs/v1/health");
        assertThat(response.status()).isEqualTo(405);
        assertErrorBody(response);
    }

    static void assertOjsHeaders(Response response) {
        assertThat(response.header("OJS-Version")).isEqualTo("1.0");
        assertThat(response.header("X-Request-Id")).isNotBlank();
        assertThat(response.header("Content-Type")).startsWith("application/openjobspec+json");
    }

    static void assertErrorBody(Response response) {
        assertOjsHeaders(response);
        var error = response.json().path("error");
        assertThat(error.path("code").isString()).isTrue();
        assertThat(error.path("type").isString()).isTrue();
        assertThat(error.path("message").isString()).isTrue();
        assertThat(error.path("retryable").isBoolean()).isTrue();
        assertThat(error.has("details")).isTrue();
        assertThat(error.path("request_id").asString()).isEqualTo(response.header("X-Request-Id"));
        assertThat(error.path("hint").isString()).isTrue();
        assertThat(error.path("docs_url").isString()).isTrue();
    }
}
