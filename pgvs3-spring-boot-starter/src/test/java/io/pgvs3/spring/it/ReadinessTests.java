package io.pgvs3.spring.it;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.pgvs3.spring.annotation.StreamListener;
import io.pgvs3.spring.listener.Pgvs3ListenerEndpointRegistry;
import io.pgvs3.test.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.CommandLineRunner;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Health and readiness say whether the listener containers run: OUT_OF_SERVICE (503) while the application
 * starts (a slow runner here) and UP once the containers started, with each container's state in the details.
 */
class ReadinessTests {

    private static final CountDownLatch runnerReached = new CountDownLatch(1);
    private static final CountDownLatch releaseRunner = new CountDownLatch(1);
    private static volatile int port;

    private final HttpClient client = HttpClient.newHttpClient();

    private HttpResponse<String> get(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void readinessWaitsForTheListenerContainers() throws Exception {
        CompletableFuture<ConfigurableApplicationContext> starting = CompletableFuture.supplyAsync(() -> TestApps.run(
                ReadyApp.class, TestPostgres.get().newDatabase(), "--spring.main.web-application-type=servlet",
                "--server.port=0", "--management.endpoint.health.show-details=always",
                "--management.endpoint.health.probes.enabled=true",
                "--management.endpoint.health.group.readiness.include=readinessState,pgvs3Listeners"));
        assertThat(runnerReached.await(60, TimeUnit.SECONDS)).isTrue();
        try {
            HttpResponse<String> listeners = get("/actuator/health/pgvs3Listeners");
            assertThat(listeners.statusCode()).isEqualTo(503);
            assertThat(listeners.body()).contains("OUT_OF_SERVICE").contains("\"ready.c\"").contains("stopped");
            assertThat(get("/actuator/health").statusCode()).as("overall health").isEqualTo(503);
            assertThat(get("/actuator/health/readiness").statusCode()).isEqualTo(503);
        }
        finally {
            releaseRunner.countDown();
        }
        try (ConfigurableApplicationContext app = starting.get(60, TimeUnit.SECONDS)) {
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                HttpResponse<String> listeners = get("/actuator/health/pgvs3Listeners");
                assertThat(listeners.statusCode()).isEqualTo(200);
                assertThat(listeners.body()).contains("\"UP\"").contains("running");
                assertThat(get("/actuator/health/readiness").statusCode()).isEqualTo(200);
            });
            assertThat(app.getBean(Pgvs3ListenerEndpointRegistry.class).getContainer("ready.c").isRunning()).isTrue();
            app.getBean(Pgvs3ListenerEndpointRegistry.class).pause("ready.c");
            assertThat(get("/actuator/health/pgvs3Listeners").body()).contains("paused");
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class ReadyApp {

        @Bean
        ReadyListener readyListener() {
            return new ReadyListener();
        }

        @Bean
        CommandLineRunner slowRunner(ApplicationContext context) {
            return args -> {
                port = ((WebServerApplicationContext) context).getWebServer().getPort();
                runnerReached.countDown();
                releaseRunner.await(60, TimeUnit.SECONDS);
            };
        }
    }

    static class ReadyListener {

        @StreamListener(id = "ready.c", queue = "ready", consumer = "c")
        void handle(String message) {
        }
    }
}
