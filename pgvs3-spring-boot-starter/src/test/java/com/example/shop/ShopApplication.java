package com.example.shop;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import com.zaxxer.hikari.HikariDataSource;
import io.pgvs3.embedded.EmbeddedPostgres;
import io.pgvs3.spring.annotation.JobHandler;
import io.pgvs3.spring.annotation.StreamListener;
import io.pgvs3.spring.listener.JobContext;
import io.pgvs3.spring.listener.StreamMessage;
import io.pgvs3.spring.template.JobOptions;
import io.pgvs3.spring.template.JobTemplate;
import io.pgvs3.spring.template.StreamTemplate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

@SpringBootApplication
public class ShopApplication {

    public static void main(String[] args) {
        SpringApplication.run(ShopApplication.class, args);
    }

    // An embedded PostgreSQL for trying things out. In production, drop these two beans and set
    // spring.datasource.url instead.
    @Bean(destroyMethod = "close")
    EmbeddedPostgres embeddedPostgres(@Value("${shop.data-dir:./shop-data}") Path dataDir) {
        return EmbeddedPostgres.builder().dataDirectory(dataDir).start();
    }

    @Bean
    HikariDataSource dataSource(EmbeddedPostgres postgres) {
        HikariDataSource dataSource = new HikariDataSource();
        dataSource.setJdbcUrl(postgres.jdbcUrl("postgres"));
        dataSource.setUsername(postgres.username());
        dataSource.setPassword(postgres.password());
        return dataSource;
    }
}

record OrderCreated(String orderId, String email, long cents) {
}

record EmailArgs(String to, String subject) {
}

record EmailReceipt(String to, Instant sentAt) {
}

@Service
class Checkout {

    private final JdbcTemplate jdbc;
    private final StreamTemplate streams;

    Checkout(JdbcTemplate jdbc, StreamTemplate streams) {
        this.jdbc = jdbc;
        this.streams = streams;
        jdbc.execute("CREATE TABLE IF NOT EXISTS orders (id text PRIMARY KEY, email text, cents bigint)");
    }

    // The order row and the event commit together, or not at all.
    @Transactional
    public void placeOrder(String orderId, String email, long cents) {
        jdbc.update("INSERT INTO orders (id, email, cents) VALUES (?, ?, ?)", orderId, email, cents);
        streams.append("orders", "order.created", new OrderCreated(orderId, email, cents));
    }
}

@Component
class OrderListeners {

    private static final Logger log = LoggerFactory.getLogger(OrderListeners.class);

    private final JobTemplate jobs;

    OrderListeners(JobTemplate jobs) {
        this.jobs = jobs;
    }

    // Every consumer of "orders" gets every event: "mailer" and "audit" each see all orders.
    @StreamListener(queue = "orders", consumer = "mailer")
    void onOrder(OrderCreated order) {
        jobs.enqueue("email.send", new EmailArgs(order.email(), "Your order " + order.orderId()),
                JobOptions.queue("emails").priority(5).delay(Duration.ofMillis(100)));
    }

    @StreamListener(queue = "orders", consumer = "audit", concurrency = "2")
    void audit(List<StreamMessage<OrderCreated>> batch) {
        batch.forEach(message -> log.info("order {} (message {}, retry {})", message.payload().orderId(),
                message.id(), message.retryCount()));
    }
}

@Component
class Mailer {

    private static final Logger log = LoggerFactory.getLogger(Mailer.class);

    // The return value is stored as the job's result; an exception fails the attempt and it is retried.
    @JobHandler(type = "email.send", queue = "emails", concurrency = "4")
    EmailReceipt send(EmailArgs email, JobContext job) {
        log.info("sending '{}' to {} (job {}, attempt {})", email.subject(), email.to(), job.id(), job.attempt());
        return new EmailReceipt(email.to(), Instant.now());
    }
}
