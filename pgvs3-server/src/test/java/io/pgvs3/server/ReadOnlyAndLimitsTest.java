package io.pgvs3.server;

import io.pgvs3.test.OjsClient;
import io.pgvs3.test.OjsClient.Response;
import org.junit.jupiter.api.Test;

import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

@TestPropertySource(properties = { "pgvs3.http.read-only=true", "pgvs3.http.max-request-bytes=1024" })
class ReadOnlyAndLimitsTest extends ServerTestSupport {

    @Test
    void readsAreAllowedAndMutationsForbidden() {
        jdbc.queryForObject("SELECT s3p.ensure_queue_schema('guarded')", String.class);
        assertThat(http.get("/ojs/v1/queues").status()).isEqualTo(200);

        Response delete = http.delete("/ojs/v1/queues/guarded");
        assertThat(delete.status()).isEqualTo(403);
        assertThat(delete.errorCode()).isEqualTo("forbidden");
        FoundationHttpTest.assertErrorBody(delete);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.queues", Integer.class)).isEqualTo(1);
    }

    @Test
    void theWorkerFetchAndAckAreForbidden() {
        jdbc.queryForObject("SELECT s3p.ensure_queue_schema('guarded')", String.class);
        for (String accept : new String[] { "application/json", "application/json, */*" }) {
            OjsClient client = http.withHeader("Accept", accept);
            Response fetch = client.post("/ojs/v1/workers/fetch", "{\"queues\":[\"guarded\"]}");
            assertThat(fetch.status()).as(accept).isEqualTo(403);
            assertThat(fetch.errorCode()).isEqualTo("forbidden");
            FoundationHttpTest.assertErrorBody(fetch);
            Response ack = client.post("/ojs/v1/workers/ack", "{\"job_id\":\"x\"}");
            assertThat(ack.status()).as(accept).isEqualTo(403);
            assertThat(ack.errorCode()).isEqualTo("forbidden");
        }
    }

    @Test
    void anOversizedBodyIsRefusedWith413() {
        Response response = http.post("/ojs/v1/admin/reset", "{\"padding\":\"" + "x".repeat(4096) + "\"}");
        assertThat(response.status()).isEqualTo(413);
        assertThat(response.errorCode()).isEqualTo("payload_too_large");
        FoundationHttpTest.assertErrorBody(response);
    }
}
