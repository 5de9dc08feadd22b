package io.pgvs3.spring.listener;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.pgvs3.core.notify.NotificationHub;
import io.pgvs3.spring.annotation.JobHandler;
import io.pgvs3.spring.annotation.StreamListener;
import io.pgvs3.spring.it.TestApps;
import io.pgvs3.spring.template.JobOptions;
import io.pgvs3.spring.template.JobTemplate;
import io.pgvs3.spring.template.StreamTemplate;
import io.pgvs3.test.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * With {@code pgvs3.listener.listen=false} (PgBouncer in transaction pooling mode) containers never LISTEN and
 * deliver by polling alone.
 */
class PollingModeTests {

    private static final List<String> received = new CopyOnWriteArrayList<>();
    private static final List<String> handled = new CopyOnWriteArrayList<>();

    @Test
    void deliversByPollingWithoutAListenConnection() {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(PollingApp.class)
                .run(TestApps.properties(TestPostgres.get().newDatabase(),
                        "--spring.main.web-application-type=none", "--pgvs3.listener.listen=false",
                        "--pgvs3.listener.min-poll-interval=20ms", "--pgvs3.listener.max-poll-interval=200ms",
                        "--pgvs3.handler.max-poll-interval=200ms"))) {
            for (int i = 0; i < 3; i++) {
                context.getBean(StreamTemplate.class).append("polled", "p", Map.of("n", i));
                context.getBean(JobTemplate.class).enqueue("polled.job", "j" + i, JobOptions.queue("polled-jobs"));
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 3 && handled.size() == 3);
            assertThat(handled).containsExactlyInAnyOrder("j0", "j1", "j2");
            assertThat(context.getBean(NotificationHub.class).isConnected()).isFalse();
        }
    }

    @SpringBootApplication
    static class PollingApp {

        @Bean
        Handlers pollingHandlers() {
            return new Handlers();
        }
    }

    static class Handlers {

        @StreamListener(queue = "polled", consumer = "poller")
        void receive(String json) {
            received.add(json);
        }

        @JobHandler(type = "polled.job", queue = "polled-jobs")
        void handle(String value) {
            handled.add(value);
        }
    }
}
