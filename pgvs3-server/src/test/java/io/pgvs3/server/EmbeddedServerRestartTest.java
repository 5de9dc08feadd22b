package io.pgvs3.server;

import java.nio.file.Path;

import io.pgvs3.test.OjsClient;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The server with no datasource configured runs its embedded PostgreSQL on the data directory, and a restart finds
 * the queues created before it.
 */
@Tag("slow")
class EmbeddedServerRestartTest {

    @TempDir
    Path dataDir;

    @Test
    void aQueueCreatedBeforeARestartIsStillListed() {
        try (ConfigurableApplicationContext first = start()) {
            assertThat(first.getBean(JdbcTemplate.class).queryForObject("SELECT s3p.ensure_queue_schema('kept')",
                    String.class)).isEqualTo("s3q_kept");
        }
        try (ConfigurableApplicationContext second = start()) {
            OjsClient http = OjsClient.forPort(((WebServerApplicationContext) second).getWebServer().getPort());
            assertThat(http.get("/ojs/v1/health").status()).isEqualTo(200);
            var queues = http.get("/ojs/v1/queues").json().path("queues");
            assertThat(queues).hasSize(1);
            assertThat(queues.get(0).path("name").asString()).isEqualTo("kept");
        }
    }

    private ConfigurableApplicationContext start() {
        return new SpringApplication(Pgvs3ServerApplication.class).run("--server.port=0",
                "--pgvs3.embedded.data-dir=" + dataDir, "--spring.datasource.url=", "--pgvs3.maintenance.enabled=false");
    }
}
