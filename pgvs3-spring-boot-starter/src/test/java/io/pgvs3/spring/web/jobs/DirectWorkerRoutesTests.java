package io.pgvs3.spring.web.jobs;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.pgvs3.test.OjsClient;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fetch and ack answer the same whether {@link DirectWorkerRoutes} serves them or Spring MVC does: each request is
 * sent once as the direct routes take it, and once with an {@code Accept} header they leave to MVC.
 */
class DirectWorkerRoutesTests {

    private static final JobRoutesApp app = JobRoutesApp.shared();
    private static final OjsClient direct = app.http().withHeader("Accept", "application/json");
    private static final OjsClient mvc = app.http().withHeader("Accept", "application/json, */*");

    @Test
    void theDirectRoutesAreOnInThisApplication() {
        assertThat(app.context().getBean(DirectWorkerRoutes.class).mapper()).isNotNull();
        assertThat(app.context().getBean(DirectWorkerRouteAdapter.class).supports(new Object())).isFalse();
    }

    @Test
    void refusedFetchesAndAcksAnswerAsThroughMvc() {
        String notFetched = app.enqueue("dw-unfetched", "dw.job", Map.of());
        List<String[]> requests = List.of(
                new String[] { DirectWorkerRoutes.FETCH, "" },
                new String[] { DirectWorkerRoutes.FETCH, "null" },
                new String[] { DirectWorkerRoutes.FETCH, "[1]" },
                new String[] { DirectWorkerRoutes.FETCH, "not json" },
                new String[] { DirectWorkerRoutes.FETCH, "{\"queues\":[\"dw-x\"]} trailing" },
                new String[] { DirectWorkerRoutes.FETCH, "{\"queues\":[]}" },
                new String[] { DirectWorkerRoutes.FETCH, "{\"queues\":\"dw-x\"}" },
                new String[] { DirectWorkerRoutes.FETCH, "{\"queues\":[\"dw-x\"],\"count\":0}" },
                new String[] { DirectWorkerRoutes.FETCH, "{\"queues\":[\"dw-x\"],\"count\":\"two\"}" },
                new String[] { DirectWorkerRoutes.FETCH, "{\"queues\":[\"dw-x\"],\"visibility_timeout_ms\":-1}" },
                new String[] { DirectWorkerRoutes.FETCH, "{\"queue\":\"dw\\u0000x\"}" },
                new String[] { DirectWorkerRoutes.FETCH, "{\"queues\":[\"no such queue!\"]}" },
                new String[] { DirectWorkerRoutes.FETCH, "{\"x\":" + "[".repeat(200) + "]".repeat(200) + "}" },
                new String[] { DirectWorkerRoutes.FETCH, "{\"n\":1e999}" },
                new String[] { DirectWorkerRoutes.ACK, "{}" },
                new String[] { DirectWorkerRoutes.ACK, "{\"job_id\":5}" },
                new String[] { DirectWorkerRoutes.ACK, "{\"job_id\":\"nope\"}" },
                new String[] { DirectWorkerRoutes.ACK, "{\"job_id\":\"019a0000-0000-7000-8000-000000000000\"}" },
                new String[] { DirectWorkerRoutes.ACK, "{\"job_id\":\"" + notFetched + "\",\"worker_id\":\"w\"}" });
        for (String[] request : requests) {
            OjsClient.Response viaDirect = direct.post(request[0], request[1]);
            OjsClient.Response viaMvc = mvc.post(request[0], request[1]);
            String what = request[0] + " " + request[1];
            assertThat(viaDirect.status()).as(what + " " + viaDirect).isEqualTo(viaMvc.status()).isNotEqualTo(500);
            assertSameHeaders(what, viaDirect, viaMvc);
            assertThat(withoutRequestId(viaDirect.json())).as(what).isEqualTo(withoutRequestId(viaMvc.json()));
        }
    }

    @Test
    void aFetchAndAnAckAnswerTheSameFieldsAsThroughMvc() {
        OjsClient.Response emptyDirect = direct.post(DirectWorkerRoutes.FETCH, Map.of("queues", List.of("dw-none")));
        OjsClient.Response emptyMvc = mvc.post(DirectWorkerRoutes.FETCH, Map.of("queues", List.of("dw-none")));
        assertThat(emptyDirect.text()).isEqualTo(emptyMvc.text()).isEqualTo("{\"jobs\":[]}");
        assertSameHeaders("empty fetch", emptyDirect, emptyMvc);

        app.enqueue("dw-round", "dw.job", Map.of());
        app.enqueue("dw-round", "dw.job", Map.of());
        OjsClient.Response fetchedDirect = direct.post(DirectWorkerRoutes.FETCH, Map.of("queues", List.of("dw-round"),
                "worker_id", "w"));
        OjsClient.Response fetchedMvc = mvc.post(DirectWorkerRoutes.FETCH, Map.of("queues", List.of("dw-round"),
                "worker_id", "w"));
        assertSameHeaders("fetch", fetchedDirect, fetchedMvc);
        JsonNode jobDirect = fetchedDirect.json().path("jobs").get(0);
        JsonNode jobMvc = fetchedMvc.json().path("jobs").get(0);
        assertThat(fieldNames(jobDirect)).isEqualTo(fieldNames(jobMvc));

        OjsClient.Response ackDirect = direct.post(DirectWorkerRoutes.ACK, Map.of("job_id",
                jobDirect.path("id").asString(), "worker_id", "w"));
        OjsClient.Response ackMvc = mvc.post(DirectWorkerRoutes.ACK, Map.of("job_id", jobMvc.path("id").asString(),
                "worker_id", "w"));
        assertThat(ackDirect.status()).as(ackDirect.toString()).isEqualTo(200).isEqualTo(ackMvc.status());
        assertSameHeaders("ack", ackDirect, ackMvc);
        assertThat(fieldNames(ackDirect.json())).isEqualTo(fieldNames(ackMvc.json()));
        assertThat(ackDirect.json().path("state").asString()).isEqualTo("completed");

        OjsClient.Response againDirect = direct.post(DirectWorkerRoutes.ACK, Map.of("job_id",
                jobDirect.path("id").asString(), "worker_id", "w"));
        OjsClient.Response againMvc = mvc.post(DirectWorkerRoutes.ACK, Map.of("job_id", jobMvc.path("id").asString(),
                "worker_id", "w"));
        assertThat(againDirect.status()).isEqualTo(againMvc.status()).isEqualTo(409);
        assertSameHeaders("second ack", againDirect, againMvc);
    }

    @Test
    void aFetchAnswerLargerThanTheResponseBufferIsSentAsThroughMvc() {
        for (int i = 0; i < 60; i++) {
            app.enqueue("dw-large", "dw.job", Map.of("tags", List.of("x".repeat(200))));
        }
        OjsClient.Response viaDirect = direct.post(DirectWorkerRoutes.FETCH, Map.of("queues", List.of("dw-large"),
                "count", 30));
        OjsClient.Response viaMvc = mvc.post(DirectWorkerRoutes.FETCH, Map.of("queues", List.of("dw-large"),
                "count", 30));
        assertThat(viaDirect.json().path("jobs").size()).as(viaDirect.toString()).isEqualTo(30);
        assertThat(viaDirect.text().length()).isGreaterThan(8192);
        assertSameHeaders("large fetch", viaDirect, viaMvc);
    }

    private static void assertSameHeaders(String what, OjsClient.Response direct, OjsClient.Response mvc) {
        for (String header : List.of("Content-Type", "OJS-Version", "Content-Length", "Transfer-Encoding",
                "Cache-Control", "X-Content-Type-Options", "X-Frame-Options", "Vary")) {
            assertThat(direct.headers().allValues(header)).as(what + ": " + header)
                    .isEqualTo(mvc.headers().allValues(header));
        }
        assertThat(direct.header("X-Request-Id")).as(what).isNotBlank();
        assertThat(direct.headers().map().keySet()).as(what).isEqualTo(mvc.headers().map().keySet());
    }

    private static JsonNode withoutRequestId(JsonNode body) {
        JsonNode copy = body.deepCopy();
        if (copy.path("error") instanceof ObjectNode error) {
            error.remove("request_id");
        }
        return copy;
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.propertyNames().forEach(names::add);
        return names;
    }
}
