package io.pgvs3.server.hostile;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import io.pgvs3.server.ServerTestSupport;
import io.pgvs3.server.hostile.RawHttp.Reply;
import io.pgvs3.test.OjsClient.Response;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Requests a hostile or careless client sends: an Accept without JSON, text PostgreSQL cannot store, names that
 * cannot be read back, duplicate workflow step names, JSON nested too deep, and requests Tomcat refuses before the
 * application. Each is a 4xx with the OJS error body, and none writes anything.
 */
class HostileInputTest extends ServerTestSupport {

    private static final String JOB = "{\"type\":\"hostile.input\",\"args\":[1],\"options\":{\"queue\":\"hostile\"}}";

    private RawHttp raw;

    @BeforeEach
    void reset() {
        assertThat(http.post("/ojs/v1/admin/reset", "").status()).isEqualTo(200);
        raw = new RawHttp(port);
    }

    @Test
    void anAcceptWithoutJsonIsRefusedWith406BeforeAnythingIsWritten() {
        List<String> routes = List.of("/ojs/v1/jobs", "/ojs/v1/jobs/batch", "/ojs/v1/cron", "/ojs/v1/workflows",
                "/ojs/v1/workers/fetch", "/ojs/v1/queues/hostile/messages", "/ojs/v1/queues/hostile/consumers",
                "/ojs/v1/queues/hostile/pause", "/ojs/v1/admin/reset");
        String cron = "{\"name\":\"hostile-cron\",\"expression\":\"0 0 1 1 *\",\"job_template\":" + JOB + "}";
        Map<String, String> bodies = Map.of("/ojs/v1/jobs/batch", "{\"jobs\":[" + JOB + "]}", "/ojs/v1/cron", cron,
                "/ojs/v1/workflows", "{\"type\":\"chain\",\"steps\":[" + JOB + "]}",
                "/ojs/v1/queues/hostile/messages", "{\"type\":\"t\",\"payload\":1}",
                "/ojs/v1/queues/hostile/consumers", "{\"consumer\":\"c\"}");
        for (String accept : List.of("application/xml", "text/html", "text/plain, image/png", "application/json;q=0",
                "not a media type")) {
            for (String route : routes) {
                Reply reply = raw.request("POST", route, Map.of("Content-Type", "application/json", "Accept", accept),
                        bodies.getOrDefault(route, JOB).getBytes(StandardCharsets.UTF_8));
                assertThat(reply.status()).as(accept + " " + route).isEqualTo(406);
                assertThat(reply.isOjsError()).as(reply.toString()).isTrue();
                assertThat(reply.json().path("error").path("code").stringValue()).isEqualTo("not_acceptable");
                assertThat(reply.json().path("error").path("retryable").booleanValue()).isFalse();
            }
        }
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.job_locations()", Long.class)).isZero();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.crons", Long.class)).isZero();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.workflows", Long.class)).isZero();
        assertThat(http.get("/ojs/v1/queues").json().path("queues").size()).isZero();

        for (String accept : List.of("*/*", "application/*", "application/json", "application/openjobspec+json",
                "text/html, application/*+json;q=0.5", "")) {
            Reply reply = raw.request("POST", "/ojs/v1/jobs", accept.isEmpty() ? Map.of("Content-Type", "application/json")
                    : Map.of("Content-Type", "application/json", "Accept", accept), JOB.getBytes(StandardCharsets.UTF_8));
            assertThat(reply.status()).as(accept).isEqualTo(201);
        }
    }

    @Test
    void textPostgresqlCannotStoreIsA400OnEveryFieldAndLeavesTheJobToBeFinished() {
        String nul = "a\\u0000b";
        String id = http.post("/ojs/v1/jobs", JOB).json().path("job").path("id").stringValue();
        JsonNode fetched = http.post("/ojs/v1/workers/fetch", Map.of("queues", List.of("hostile"), "worker_id", "w1")).json();
        assertThat(fetched.path("jobs").get(0).path("id").stringValue()).isEqualTo(id);
        List<String[]> cases = List.of(
                new String[] { "/ojs/v1/workers/ack", "{\"job_id\":\"" + id + "\",\"result\":{\"v\":\"" + nul + "\"}}" },
                new String[] { "/ojs/v1/workers/ack", "{\"job_id\":\"" + id + "\",\"result\":\"\\ud800\"}" },
                new String[] { "/ojs/v1/workers/ack", "{\"job_id\":\"" + id + "\",\"worker_id\":\"" + nul + "\"}" },
                new String[] { "/ojs/v1/workers/nack", "{\"job_id\":\"" + id + "\",\"error\":{\"message\":\"" + nul + "\"}}" },
                new String[] { "/ojs/v1/workers/nack", "{\"job_id\":\"" + id + "\",\"error\":{\"" + nul + "\":1}}" },
                new String[] { "/ojs/v1/workers/fetch", "{\"queues\":[\"hostile\"],\"worker_id\":\"" + nul + "\"}" },
                new String[] { "/ojs/v1/workers/heartbeat", "{\"worker_id\":\"" + nul + "\",\"job_ids\":[\"" + id + "\"]}" },
                new String[] { "/ojs/v1/cron", "{\"name\":\"" + nul + "\",\"expression\":\"0 0 1 1 *\",\"job_template\":"
                        + JOB + "}" },
                new String[] { "/ojs/v1/cron", "{\"name\":\"c\",\"expression\":\"0 0 1 1 *\",\"job_template\":"
                        + "{\"type\":\"t\",\"args\":[\"" + nul + "\"]}}" },
                new String[] { "/ojs/v1/workflows", "{\"type\":\"chain\",\"name\":\"" + nul + "\",\"steps\":[" + JOB + "]}" },
                new String[] { "/ojs/v1/jobs", "{\"type\":\"t\",\"args\":[\"" + nul + "\"]}" },
                new String[] { "/ojs/v1/jobs", "{\"type\":\"" + nul + "\",\"args\":[]}" },
                new String[] { "/ojs/v1/queues/hostile/messages", "{\"type\":\"t\",\"payload\":{\"" + nul + "\":1}}" });
        for (String[] c : cases) {
            Response response = http.post(c[0], c[1]);
            assertThat(response.status()).as(c[0] + " " + c[1] + " -> " + response).isEqualTo(400);
            assertThat(response.errorCode()).isEqualTo("invalid_payload");
            assertThat(response.text()).doesNotContain("unsupported Unicode", "invalid byte sequence", "ERROR:", "SQLState",
                    "22P05", "22021");
        }
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.crons", Long.class)).isZero();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.workflows", Long.class)).isZero();
        assertThat(http.get("/ojs/v1/jobs/" + id).json().path("job").path("state").stringValue()).isEqualTo("active");
        assertThat(http.post("/ojs/v1/workers/ack", Map.of("job_id", id, "result", Map.of("ok", true))).status())
                .isEqualTo(200);
        assertThat(http.get("/ojs/v1/jobs/" + id).json().path("job").path("state").stringValue()).isEqualTo("completed");

        assertThat(raw.request("GET", "/ojs/v1/cron/a%00b", Map.of(), null).status()).isEqualTo(400);
        Reply query = raw.request("GET", "/ojs/v1/queues/hostile/dlq?limit=1&x=%00", Map.of(), null);
        assertThat(query.status()).as(query.toString()).isEqualTo(400);
        assertThat(query.isOjsError()).isTrue();
    }

    @Test
    void namesFollowOneRuleOnCreateReadAndDelete() {
        for (String path : List.of("stats", "info", "config", "consumers", "dlq")) {
            Response read = http.get("/ojs/v1/queues/Bad_Name/" + path);
            assertThat(read.status()).as(path + " " + read).isEqualTo(400);
            assertThat(read.errorCode()).isEqualTo("invalid_request");
        }
        assertThat(http.delete("/ojs/v1/queues/Bad_Name").status()).isEqualTo(400);
        assertThat(http.post("/ojs/v1/queues/Bad_Name/messages", Map.of("type", "t", "payload", 1)).status()).isEqualTo(400);
        assertThat(http.post("/ojs/v1/jobs", "{\"type\":\"t\",\"args\":[],\"options\":{\"queue\":\"Bad_Name\"}}")
                .status()).isEqualTo(400);
        assertThat(http.post("/ojs/v1/queues/hostile/consumers", Map.of("consumer", "../x")).status()).isEqualTo(400);

        String template = ",\"expression\":\"0 0 1 1 *\",\"job_template\":" + JOB + "}";
        for (String name : List.of("../x", "a/b", ".", "..", "a b", "x".repeat(256), "", "%2e")) {
            Response response = http.post("/ojs/v1/cron", "{\"name\":\"" + name + "\"" + template);
            assertThat(response.status()).as(name + " " + response).isEqualTo(400);
            assertThat(response.json().path("error").path("details").path("field").stringValue()).isEqualTo("name");
        }
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.crons", Long.class)).isZero();
        assertThat(http.get("/ojs/v1/cron/a%20b").status()).isEqualTo(400);
        assertThat(http.delete("/ojs/v1/cron/a%20b").status()).isEqualTo(400);
        assertThat(http.delete("/ojs/v1/queues/hostile/consumers/a%20b").status()).isEqualTo(400);

        String name = "Nightly_report.v2:eu-" + "x".repeat(20);
        assertThat(http.post("/ojs/v1/cron", "{\"name\":\"" + name + "\"" + template).status()).isEqualTo(201);
        assertThat(http.get("/ojs/v1/cron/" + name).status()).isEqualTo(200);
        assertThat(http.delete("/ojs/v1/cron/" + name).status()).isEqualTo(200);
        assertThat(http.get("/ojs/v1/cron/" + name).status()).isEqualTo(404);
    }

    @Test
    void aGraphWithTwoStepsOfOneNameIsRefused() {
        Response response = http.post("/ojs/v1/workflows", "{\"type\":\"graph\",\"steps\":["
                + "{\"name\":\"a\",\"type\":\"t\",\"args\":[]},{\"name\":\"b\",\"type\":\"t\",\"args\":[],\"depends_on\":[\"a\"]},"
                + "{\"name\":\"a\",\"type\":\"t\",\"args\":[]}]}");
        assertThat(response.status()).as(response.toString()).isEqualTo(400);
        assertThat(response.json().path("error").path("message").stringValue()).contains("'a'", "step name");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.workflows", Long.class)).isZero();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.job_locations()", Long.class)).isZero();
    }

    @Test
    void nestingIsBoundedSoThatWhatIsStoredCanBeWrittenBack() {
        String accepted = "[".repeat(127) + "1" + "]".repeat(127);
        Response created = http.post("/ojs/v1/jobs", "{\"type\":\"t\",\"args\":" + accepted + "}");
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        String id = created.json().path("job").path("id").stringValue();
        assertThat(http.get("/ojs/v1/jobs/" + id).status()).isEqualTo(200);
        assertThat(http.post("/ojs/v1/workers/fetch", Map.of("queues", List.of("default"))).status()).isEqualTo(200);

        for (int depth : List.of(128, 600, 5000)) {
            String deep = "[".repeat(depth) + "1" + "]".repeat(depth);
            Response refused = http.post("/ojs/v1/jobs", "{\"type\":\"t\",\"args\":" + deep + "}");
            assertThat(refused.status()).as(depth + " " + refused).isEqualTo(400);
            assertThat(refused.errorCode()).isEqualTo("invalid_payload");
        }
        Response huge = http.post("/ojs/v1/jobs", "{\"type\":\"t\",\"args\":[1e999999]}");
        assertThat(huge.status()).as(huge.toString()).isEqualTo(400);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.job_locations()", Long.class)).isEqualTo(1);
    }

    @Test
    void requestsTomcatRefusesAnswerTheOjsErrorBody() {
        List<String> heads = List.of(
                "GET /ojs/v1/jobs/a%2Fb HTTP/1.1\r\nHost: x",
                "GET /ojs/v1/jobs/%ZZ HTTP/1.1\r\nHost: x",
                "GET /ojs/v1/jobs/\u00ff\u0001 HTTP/1.1\r\nHost: x",
                "GET /ojs/v1/jobs/a{b} HTTP/1.1\r\nHost: x",
                "GET /ojs/v1/health HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(20_000),
                "POST /ojs/v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Length: -1",
                "POST /ojs/v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 12abc",
                "POST /ojs/v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3",
                "G@T /ojs/v1/health HTTP/1.1\r\nHost: x",
                "GET /ojs/v1/health HTTP/9.9\r\nHost: x",
                "GET /ojs/v1/health HTTP/1.1\r\nHost: x\r\nBad Header Name: 1",
                "GET /ojs/v1/health HTTP/1.1",
                "POST /ojs/v1/jobs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n");
        for (String head : heads) {
            Reply reply = raw.send(head + "\r\nConnection: close", null);
            assertThat(reply.status()).as(head + " -> " + reply).isBetween(400, 499);
            assertThat(reply.isOjsError()).as(head + " -> " + reply).isTrue();
            assertThat(reply.body()).doesNotContain("<html", "Tomcat");
        }
        Reply method = raw.request("BREW", "/ojs/v1/jobs", Map.of(), null);
        // refused by Spring Security's firewall (400) or by Spring MVC (405): either way the OJS error body
        assertThat(method.status()).as(method.toString()).isIn(400, 405);
        assertThat(method.isOjsError()).isTrue();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.job_locations()", Long.class)).isZero();
    }
}
