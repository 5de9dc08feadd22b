package com.example.docs;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.pgvs3.core.stream.StreamStore;
import io.pgvs3.spring.annotation.JobHandler;
import io.pgvs3.spring.annotation.StreamListener;
import io.pgvs3.spring.listener.Acknowledgment;
import io.pgvs3.spring.listener.DefaultListenerErrorHandler;
import io.pgvs3.spring.listener.DeliveryFailure;
import io.pgvs3.spring.listener.JobContext;
import io.pgvs3.spring.listener.ListenerErrorHandler;
import io.pgvs3.spring.listener.Pgvs3ListenerContainerFactory;
import io.pgvs3.spring.listener.Pgvs3ListenerEndpointRegistry;
import io.pgvs3.spring.listener.StreamMessage;
import io.pgvs3.spring.template.JobOptions;
import io.pgvs3.spring.template.JobTemplate;
import io.pgvs3.spring.template.StreamTemplate;
import io.pgvs3.spring.test.Pgvs3Await;
import io.pgvs3.test.TestPostgres;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.util.backoff.FixedBackOff;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The examples of docs/spring.md, compiled and run: the annotated methods, the error handler bean and the extra
 * container factory.
 */
@Tag("slow")
class DocsExamplesTests {

    @Test
    void theDocumentedExamplesRun() {
        var database = TestPostgres.get().newDatabase();
        String[] args = { "--spring.datasource.url=" + database.jdbcUrl(),
                "--spring.datasource.username=" + (database.username() == null ? "" : database.username()),
                "--spring.datasource.password=" + (database.password() == null ? "" : database.password()),
                "--spring.main.web-application-type=none", "--spring.main.banner-mode=off" };
        try (ConfigurableApplicationContext app = SpringApplication.run(DocsApp.class, args)) {
            Pgvs3Await.listenersStarted(app.getBean(Pgvs3ListenerEndpointRegistry.class), Duration.ofSeconds(20));
            StreamTemplate streams = app.getBean(StreamTemplate.class);
            streams.append("orders", "order.created", new Order("o-1", 10));
            String invalid = streams.append("orders", "order.created", new Order("invalid", -1)).id();
            StreamStore store = app.getBean(StreamStore.class);
            Pgvs3Await.consumerCaughtUp(store, "orders", "billing", Duration.ofSeconds(20));
            Pgvs3Await.consumerCaughtUp(store, "orders", "audit", Duration.ofSeconds(20));
            Pgvs3Await.consumerCaughtUp(store, "orders", "bulk", Duration.ofSeconds(20));
            assertThat(DocsApp.billed).containsExactly("o-1", "invalid");
            assertThat(DocsApp.auditFailures).as("not retryable: recovered at the first attempt")
                    .allMatch(failure -> failure.attempt() == 1)
                    .anyMatch(failure -> failure.messageId().equals(invalid));
            assertThat(app.getBean("bulkFactory", Pgvs3ListenerContainerFactory.class).getMaxBatchSize())
                    .isEqualTo(1000);
            var job = app.getBean(JobTemplate.class).enqueue("email.send", new Email("a@example.com"),
                    JobOptions.queue("emails"));
            assertThat(Pgvs3Await.jobFinished(app.getBean(io.pgvs3.core.job.JobStore.class), job.id(),
                    Duration.ofSeconds(20)).state().wireValue()).isEqualTo("completed");
        }
    }

    record Order(String id, int amount) {
    }

    record Email(String to) {
    }

    record Receipt(String to, int attempt) {
    }

    static class AuditFailures {

        void save(DeliveryFailure failure) {
            DocsApp.auditFailures.add(failure);
        }
    }

    static class ValidationException extends RuntimeException {

        ValidationException(String message) {
            super(message);
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class DocsApp {

        static final List<String> billed = new CopyOnWriteArrayList<>();
        static final List<DeliveryFailure> auditFailures = new CopyOnWriteArrayList<>();

        @Bean
        AuditFailures auditFailures() {
            return new AuditFailures();
        }

        // as in docs/spring.md, "Error handling"
        @Bean
        ListenerErrorHandler auditErrors(AuditFailures failures) {
            return new DefaultListenerErrorHandler(new FixedBackOff(500, 3), failures::save)
                    .addNotRetryableExceptions(ValidationException.class);
        }

        // as in docs/spring.md, "Container factories"
        @Bean
        Pgvs3ListenerContainerFactory bulkFactory(Pgvs3ListenerContainerFactory pgvs3ListenerContainerFactory) {
            Pgvs3ListenerContainerFactory factory = pgvs3ListenerContainerFactory.copy();
            factory.setMaxBatchSize(1000);
            factory.setErrorHandler(new DefaultListenerErrorHandler(new FixedBackOff(0, 0)));
            return factory;
        }

        @Bean
        Handlers handlers() {
            return new Handlers();
        }
    }

    static class Handlers {

        @StreamListener(queue = "orders", consumer = "billing")
        void bill(Order order) {
            DocsApp.billed.add(order.id());
        }

        @StreamListener(queue = "orders", consumer = "audit", maxBatchSize = "50", errorHandler = "auditErrors")
        void audit(List<StreamMessage<Order>> batch) {
            if (batch.stream().anyMatch(message -> message.payload().amount() < 0)) {
                throw new ValidationException("negative amount");
            }
        }

        @StreamListener(queue = "orders", consumer = "bulk", containerFactory = "bulkFactory")
        void bulk(List<Map<String, Object>> batch, Acknowledgment acknowledgment) {
            acknowledgment.acknowledge();
        }

        @JobHandler(type = "email.send", queue = "emails", concurrency = "4")
        Receipt send(Email email, JobContext context) {
            return new Receipt(email.to(), context.attempt());
        }
    }
}
