package io.pgvs3.spring.web.jobs;

import java.util.List;
import java.util.Map;

import io.pgvs3.spring.it.TestApps;
import io.pgvs3.test.OjsClient;
import io.pgvs3.test.TestPostgres;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application with nothing but the starter's auto-configuration, serving the OJS routes on a free loopback port
 * over a database of its own. The test classes of the job routes share one, started by the first of them and closed
 * when the test JVM exits; each class works on queues, crons and workflows named with a prefix of its own.
 */
final class JobRoutesApp {

    private static JobRoutesApp shared;

    private final OjsClient http;
    private final ConfigurableApplicationContext context;

    private JobRoutesApp(ConfigurableApplicationContext context) {
        this.context = context;
        this.http = OjsClient.forPort(((WebServerApplicationContext) context).getWebServer().getPort());
    }

    static synchronized JobRoutesApp shared() {
        if (shared == null) {
            // the application's shutdown hook closes it when the test JVM exits
            shared = new JobRoutesApp(new SpringApplicationBuilder(App.class).run(TestApps.webProperties(
                    TestPostgres.get().newDatabase(), "--spring.datasource.hikari.maximum-pool-size=8")));
        }
        return shared;
    }

    OjsClient http() {
        return http;
    }

    ConfigurableApplicationContext context() {
        return context;
    }

    /** Enqueues a job of {@code type} on {@code queue} with {@code options} besides the queue; answers its id. */
    String enqueue(String queue, String type, Map<String, Object> options) {
        Map<String, Object> all = new java.util.LinkedHashMap<>(options);
        all.put("queue", queue);
        OjsClient.Response response = http.post("/ojs/v1/jobs", Map.of("type", type, "args", List.of(1), "options", all));
        assertThat(response.status()).as(response.toString()).isEqualTo(201);
        return response.json().path("job").path("id").asString();
    }

    /** Fetches one job of {@code queue} as {@code worker} and answers its envelope. */
    JsonNode fetchOne(String queue, String worker) {
        OjsClient.Response response = http.post("/ojs/v1/workers/fetch", Map.of("queues", List.of(queue),
                "worker_id", worker));
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        assertThat(response.json().path("jobs").size()).as(response.toString()).isEqualTo(1);
        return response.json().path("jobs").get(0);
    }

    /** An OJS error answer: {@code status}, {@code error.code} and a message, and nothing of a server failure. */
    static void assertError(OjsClient.Response response, int status, String code) {
        assertThat(response.status()).as(response.toString()).isEqualTo(status);
        assertThat(response.errorCode()).as(response.toString()).isEqualTo(code);
        assertThat(response.json().path("error").path("message").asString()).as(response.toString()).isNotBlank();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
    }
}
