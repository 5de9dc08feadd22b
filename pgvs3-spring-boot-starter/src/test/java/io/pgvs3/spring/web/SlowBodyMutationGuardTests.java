package io.pgvs3.spring.web;

import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import io.pgvs3.spring.autoconfigure.Pgvs3SecurityAutoConfiguration;
import io.pgvs3.test.SlowHttp;
import io.pgvs3.test.SlowHttp.Reply;
import io.pgvs3.test.TestDatabase;
import io.pgvs3.test.TestPostgres;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration;
import org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration;
import org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterAutoConfiguration;
import org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.filter.OncePerRequestFilter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application with the pgvs3 routes and no Spring Security: a browser's cross-origin form whose large body
 * arrives after its headers is refused by the mutation guard like a small one, and changes nothing; a JSON body sent
 * the same way is served.
 */
@Tag("slow")
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        classes = SlowBodyMutationGuardTests.App.class,
        properties = { "pgvs3.http.enabled=true", "spring.main.banner-mode=off" })
class SlowBodyMutationGuardTests {

    @SpringBootConfiguration
    @EnableAutoConfiguration(exclude = { SecurityAutoConfiguration.class, ServletWebSecurityAutoConfiguration.class,
            SecurityFilterAutoConfiguration.class, UserDetailsServiceAutoConfiguration.class,
            ManagementWebSecurityAutoConfiguration.class, Pgvs3SecurityAutoConfiguration.class })
    static class App {

        @Bean
        AsyncDispatches asyncDispatches() {
            return new AsyncDispatches();
        }
    }

    /** Counts the dispatches that follow an asynchronous read of a request body. */
    static final class AsyncDispatches extends OncePerRequestFilter {

        final AtomicInteger count = new AtomicInteger();

        @Override
        protected boolean shouldNotFilterAsyncDispatch() {
            return false;
        }

        @Override
        protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
                throws ServletException, IOException {
            if (request.getDispatcherType() == DispatcherType.ASYNC) {
                count.incrementAndGet();
            }
            chain.doFilter(request, response);
        }
    }

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        TestDatabase database = TestPostgres.get().newDatabase();
        registry.add("spring.datasource.url", database::jdbcUrl);
        if (database.username() != null) {
            registry.add("spring.datasource.username", database::username);
        }
        if (database.password() != null) {
            registry.add("spring.datasource.password", database::password);
        }
    }

    @LocalServerPort
    int port;

    @Autowired
    JdbcTemplate jdbc;

    @Autowired
    AsyncDispatches asyncDispatches;

    @Test
    void aBodyThatCameWithItsHeadersIsServedInTheFirstDispatch() throws IOException {
        int before = asyncDispatches.count.get();
        String body = "{\"type\":\"t\",\"queue\":\"whole\",\"args\":[1]}";
        String request = "POST /ojs/v1/jobs HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + body.length() + "\r\nConnection: close\r\n\r\n" + body;
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(30_000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.UTF_8));
            String reply = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(reply).startsWith("HTTP/1.1 201");
        }
        assertThat(asyncDispatches.count.get()).isEqualTo(before);
    }

    @Test
    void aSlowCrossOriginFormIsRefusedAndASlowJsonBodyIsServed() {
        SlowHttp slow = new SlowHttp(port);
        Reply created = slow.post("/ojs/v1/jobs", Map.of("Content-Type", "application/json"),
                "{\"type\":\"t\",\"queue\":\"victim\",\"args\":[\"" + "x".repeat(70_000) + "\"]}", 100);
        assertThat(created.status()).as(created.text()).isEqualTo(201);

        String form = "a=" + "b".repeat(70_000);
        Reply pause = slow.post("/ojs/v1/queues/victim/pause", Map.of("Content-Type",
                "application/x-www-form-urlencoded", "Origin", "https://evil.example"), form, 100);
        assertThat(pause.status()).as(pause.text()).isEqualTo(415);
        Reply chunked = slow.postChunked("/ojs/v1/queues/victim/pause", Map.of("Content-Type", "text/plain",
                "Origin", "https://evil.example"), form, 100);
        assertThat(chunked.status()).as(chunked.text()).isEqualTo(415);
        Reply delete = slow.post("/ojs/v1/queues/victim/pause", Map.of("Content-Type", "application/json",
                "Origin", "https://evil.example"), "{\"x\":\"" + "b".repeat(70_000) + "\"}", 100);
        assertThat(delete.status()).as(delete.text()).isEqualTo(403);

        assertThat(jdbc.queryForObject("SELECT paused FROM s3q_victim.job_settings", Boolean.class)).isFalse();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3q_victim.jobs", Integer.class)).isEqualTo(1);
    }
}
