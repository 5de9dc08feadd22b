package io.pgvs3.spring.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.pgvs3.spring.annotation.StreamListener;
import io.pgvs3.spring.listener.FailureAction;
import io.pgvs3.spring.listener.Pgvs3ListenerContainerFactory;
import io.pgvs3.spring.listener.Pgvs3ListenerEndpointRegistry;
import io.pgvs3.spring.template.OutgoingMessage;
import io.pgvs3.spring.template.StreamTemplate;
import io.pgvs3.test.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Several container factories with settings of their own, chosen by {@code containerFactory}; where a new
 * consumer starts, chosen by {@code startFrom}.
 */
class ContainerFactoryTests {

    private static final List<Integer> smallBatches = new CopyOnWriteArrayList<>();
    private static final List<Integer> defaultBatches = new CopyOnWriteArrayList<>();
    private static final List<String> customHandled = new CopyOnWriteArrayList<>();
    private static final List<Integer> earliest = new CopyOnWriteArrayList<>();
    private static final List<Integer> latest = new CopyOnWriteArrayList<>();

    @Test
    void listenersUseTheFactoryTheyNameWithItsSettings() {
        try (ConfigurableApplicationContext app = TestApps.run(FactoryApp.class, TestPostgres.get().newDatabase())) {
            List<OutgoingMessage> messages = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                messages.add(OutgoingMessage.of(i == 5 ? "bad" : "ok", Map.of("n", i)));
            }
            StreamTemplate streams = app.getBean(StreamTemplate.class);
            streams.appendAll("factories", messages);
            await().atMost(Duration.ofSeconds(20)).until(() -> smallBatches.stream().mapToInt(Integer::intValue).sum()
                    >= 12 && defaultBatches.stream().mapToInt(Integer::intValue).sum() >= 12);
            assertThat(smallBatches).as("the small factory's batch size").allMatch(size -> size <= 3);
            assertThat(defaultBatches).as("the default factory's batch size").contains(12);
            await().atMost(Duration.ofSeconds(10)).until(() -> customHandled.size() == 3);
            assertThat(customHandled).as("each message of the failed chunk").containsOnly("small.c");
        }
    }

    @Test
    void startFromChoosesWhereANewConsumerBegins() {
        try (ConfigurableApplicationContext app = TestApps.run(StartApp.class, TestPostgres.get().newDatabase())) {
            StreamTemplate streams = app.getBean(StreamTemplate.class);
            for (int i = 0; i < 5; i++) {
                streams.append("history", "n", Map.of("n", i));
            }
            Pgvs3ListenerEndpointRegistry registry = app.getBean(Pgvs3ListenerEndpointRegistry.class);
            registry.start("history.earliest");
            registry.start("history.latest");
            await().atMost(Duration.ofSeconds(20)).until(() -> earliest.size() == 5);
            streams.append("history", "n", Map.of("n", 5));
            await().atMost(Duration.ofSeconds(20)).until(() -> earliest.size() == 6 && latest.size() == 1);
            assertThat(earliest).containsExactly(0, 1, 2, 3, 4, 5);
            assertThat(latest).containsExactly(5);
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class FactoryApp {

        @Bean
        Pgvs3ListenerContainerFactory smallBatchFactory(Pgvs3ListenerContainerFactory pgvs3ListenerContainerFactory) {
            Pgvs3ListenerContainerFactory factory = pgvs3ListenerContainerFactory.copy();
            factory.setMaxBatchSize(3);
            factory.setErrorHandler(failure -> {
                customHandled.add(failure.listenerId());
                return FailureAction.recovered();
            });
            return factory;
        }

        @Bean
        FactoryListeners factoryListeners() {
            return new FactoryListeners();
        }
    }

    static class FactoryListeners {

        @StreamListener(id = "small.c", queue = "factories", consumer = "small", containerFactory = "smallBatchFactory")
        void small(List<io.pgvs3.spring.listener.StreamMessage<Map<String, Integer>>> batch) {
            smallBatches.add(batch.size());
            if (batch.stream().anyMatch(message -> message.type().equals("bad"))) {
                throw new IllegalStateException("bad in batch");
            }
        }

        @StreamListener(queue = "factories", consumer = "default", maxBatchSize = "100")
        void regular(List<Map<String, Integer>> batch) {
            defaultBatches.add(batch.size());
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class StartApp {

        @Bean
        StartListeners startListeners() {
            return new StartListeners();
        }
    }

    static class StartListeners {

        @StreamListener(id = "history.earliest", queue = "history", consumer = "from-start", startFrom = "earliest",
                autoStartup = "false")
        void fromStart(Map<String, Integer> message) {
            earliest.add(message.get("n"));
        }

        @StreamListener(id = "history.latest", queue = "history", consumer = "from-now", autoStartup = "false")
        void fromNow(Map<String, Integer> message) {
            latest.add(message.get("n"));
        }
    }

}
