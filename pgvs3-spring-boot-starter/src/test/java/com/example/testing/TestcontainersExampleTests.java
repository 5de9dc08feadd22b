package com.example.testing;

import java.time.Duration;
import java.util.Map;

import io.pgvs3.core.stream.StreamStore;
import io.pgvs3.spring.annotation.StreamListener;
import io.pgvs3.spring.listener.Pgvs3ListenerEndpointRegistry;
import io.pgvs3.spring.template.StreamTemplate;
import io.pgvs3.spring.test.Pgvs3Await;
import io.pgvs3.spring.test.Pgvs3Test;
import org.junit.jupiter.api.Test;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.postgresql.PostgreSQLContainer;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.annotation.Bean;

/**
 * The Testcontainers example of docs/spring.md: a PostgreSQL container as the application's {@code DataSource}
 * through {@code @ServiceConnection}. Runs where Docker is available and is skipped elsewhere.
 */
@Testcontainers(disabledWithoutDocker = true)
@Pgvs3Test(classes = TestcontainersExampleTests.OrdersApp.class)
class TestcontainersExampleTests {

    @Container
    @ServiceConnection
    static PostgreSQLContainer postgres = new PostgreSQLContainer("postgres:17");

    @Autowired
    StreamTemplate streams;

    @Autowired
    StreamStore store;

    @Autowired
    Pgvs3ListenerEndpointRegistry registry;

    @Test
    void ordersAreBilled() {
        Pgvs3Await.listenersStarted(registry, Duration.ofSeconds(30));
        streams.append("orders", "order.created", Map.of("id", "o-1"));
        Pgvs3Await.consumerCaughtUp(store, "orders", "billing", Duration.ofSeconds(30));
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class OrdersApp {

        @Bean
        Billing billing() {
            return new Billing();
        }
    }

    static class Billing {

        @StreamListener(queue = "orders", consumer = "billing")
        void bill(Map<String, String> order) {
        }
    }
}
