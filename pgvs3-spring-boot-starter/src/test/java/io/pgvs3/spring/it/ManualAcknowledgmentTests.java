package io.pgvs3.spring.it;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.pgvs3.core.stream.AppendResult;
import io.pgvs3.spring.annotation.StreamListener;
import io.pgvs3.spring.listener.Acknowledgment;
import io.pgvs3.spring.listener.StreamMessage;
import io.pgvs3.spring.template.OutgoingMessage;
import io.pgvs3.spring.template.StreamTemplate;
import io.pgvs3.test.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Listeners that declare an {@link Acknowledgment} acknowledge and nack by themselves.
 */
class ManualAcknowledgmentTests {

    private static final List<Delivery> single = new CopyOnWriteArrayList<>();
    private static final List<Delivery> batches = new CopyOnWriteArrayList<>();

    private static ConfigurableApplicationContext app;
    private static StreamTemplate streams;

    @BeforeAll
    static void start() {
        app = TestApps.run(ManualApp.class, TestPostgres.get().newDatabase());
        streams = app.getBean(StreamTemplate.class);
    }

    @AfterAll
    static void stop() {
        app.close();
    }

    private static List<Delivery> of(List<Delivery> deliveries, String id) {
        return deliveries.stream().filter(delivery -> delivery.id().equals(id)).toList();
    }

    @Test
    void anAcknowledgedMessageIsDeliveredOnce() throws InterruptedException {
        AppendResult message = streams.append("manual", "ack", Map.of("n", 1));
        await().atMost(Duration.ofSeconds(20)).until(() -> of(single, message.id()).size() == 1);
        Thread.sleep(500);
        assertThat(of(single, message.id())).hasSize(1);
    }

    @Test
    void aNackedMessageComesBackAfterItsDelayWithItsRetryCountRaised() {
        AppendResult message = streams.append("manual", "nack", Map.of("n", 2));
        await().atMost(Duration.ofSeconds(30)).until(() -> of(single, message.id()).size() == 2);
        List<Delivery> deliveries = of(single, message.id());
        assertThat(deliveries.get(0).retryCount()).isZero();
        assertThat(deliveries.get(1).retryCount()).isEqualTo(1);
        assertThat(Duration.ofNanos(deliveries.get(1).atNanos() - deliveries.get(0).atNanos()))
                .isGreaterThanOrEqualTo(Duration.ofMillis(300));
    }

    @Test
    void aBatchLeftUndecidedIsDeliveredAgainWhole() {
        AppendResult message = streams.append("manual", "ignore", Map.of("n", 3));
        await().atMost(Duration.ofSeconds(30)).until(() -> of(single, message.id()).size() == 2);
        List<Delivery> deliveries = of(single, message.id());
        assertThat(deliveries).extracting(Delivery::retryCount).containsExactly(0, 0);
        assertThat(deliveries.get(0).batchId()).isEqualTo(deliveries.get(1).batchId());
    }

    @Test
    void aBatchListenerNacksOneMessageAndAcknowledgesTheOthers() throws InterruptedException {
        List<AppendResult> appended = streams.appendAll("manual-batch", List.of(OutgoingMessage.of("a", Map.of("n", 0)),
                OutgoingMessage.of("b", Map.of("n", 1)), OutgoingMessage.of("c", Map.of("n", 2))));
        await().atMost(Duration.ofSeconds(30)).until(() -> batches.size() == 4);
        Thread.sleep(500);
        assertThat(batches).hasSize(4);
        assertThat(of(batches, appended.get(1).id())).extracting(Delivery::retryCount).containsExactly(0, 1);
        assertThat(of(batches, appended.get(0).id())).hasSize(1);
        assertThat(of(batches, appended.get(2).id())).hasSize(1);
    }

    record Delivery(String id, int retryCount, long batchId, long atNanos) {

        static Delivery of(StreamMessage<?> message) {
            return new Delivery(message.id(), message.retryCount(), message.batchId(), System.nanoTime());
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class ManualApp {

        @Bean
        ManualListeners manualListeners() {
            return new ManualListeners();
        }
    }

    static class ManualListeners {

        @StreamListener(queue = "manual", consumer = "c")
        void handle(StreamMessage<Map<String, Integer>> message, Acknowledgment acknowledgment) {
            List<Delivery> before = single.stream().filter(delivery -> delivery.id().equals(message.id())).toList();
            single.add(Delivery.of(message));
            switch (message.type()) {
                case "nack" -> {
                    if (message.retryCount() == 0) {
                        acknowledgment.nack(Duration.ofMillis(300));
                    }
                    else {
                        acknowledgment.acknowledge();
                    }
                }
                case "ignore" -> {
                    if (!before.isEmpty()) {
                        acknowledgment.acknowledge();
                    }
                }
                default -> acknowledgment.acknowledge();
            }
        }

        @StreamListener(queue = "manual-batch", consumer = "c")
        void handleBatch(List<StreamMessage<Map<String, Integer>>> batch, Acknowledgment acknowledgment) {
            batch.forEach(message -> batches.add(Delivery.of(message)));
            for (int i = 0; i < batch.size(); i++) {
                if (batch.get(i).type().equals("b") && batch.get(i).retryCount() == 0) {
                    acknowledgment.nack(i, Duration.ZERO);
                    return;
                }
            }
            acknowledgment.acknowledge();
        }
    }
}
