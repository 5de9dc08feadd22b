package com.example.shop;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Runs the example application of the README, on its own embedded PostgreSQL.
 */
@Tag("slow")
class ShopApplicationTests {

    @Test
    void anOrderBecomesAnEventAndTheEventAnEmailJob(@TempDir Path dir) throws Exception {
        Path dataDir = Files.createDirectories(dir.resolve("shop-data"));
        try (ConfigurableApplicationContext shop = SpringApplication.run(ShopApplication.class,
                "--shop.data-dir=" + dataDir, "--server.port=0", "--spring.main.banner-mode=off")) {
            shop.getBean(Checkout.class).placeOrder("o-1", "ada@example.com", 4200);
            JdbcTemplate jdbc = shop.getBean(JdbcTemplate.class);
            await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> jdbc.queryForObject(
                    "SELECT count(*) FROM s3q_emails.jobs WHERE state = 'completed'", Long.class) == 1);
            String result = jdbc.queryForObject("SELECT result::text FROM s3q_emails.jobs", String.class);
            assertThat(result).contains("\"to\": \"ada@example.com\"");
        }
    }
}
