package io.pgvs3.server.streams;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import io.pgvs3.server.ServerTestSupport;
import io.pgvs3.test.OjsClient;
import io.pgvs3.test.OjsClient.Response;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.web.context.request.async.WebAsyncUtils;
import org.springframework.web.filter.OncePerRequestFilter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A long-poll's answer is written by the thread that found it (the wake lane, a long-poll worker), not handed back
 * to a request thread through an async dispatch that runs the filters and the dispatcher again: a filter that sees
 * every dispatch of the receive route counts no dispatch of an async result, for a receive woken by an append and for
 * one answered empty at its deadline, and the answers are what a synchronous receive answers (status, content
 * type, OJS headers, body). A receive that fails while waiting still answers through Spring's error handling.
 */
class LongPollAnswerTest extends ServerTestSupport {

    @Autowired
    Dispatches dispatches;

    @BeforeEach
    void reset() {
        dispatches.clear();
    }

    @Test
    void aWokenLongPollIsAnsweredWithoutAnAsyncDispatch() throws Exception {
        http.post("/ojs/v1/queues/woken/consumers", Map.of("consumer", "c"));
        ExecutorService client = Executors.newSingleThreadExecutor();
        try {
            CompletableFuture<Response> poll = CompletableFuture.supplyAsync(() -> http.post(
                    "/ojs/v1/queues/woken/receive", Map.of("consumer", "c", "wait_ms", 20_000)), client);
            // the request thread has left the handler with the request asynchronous: the answer comes from elsewhere
            dispatches.awaitAsyncStarted("/ojs/v1/queues/woken/receive", 1);
            assertThat(poll).isNotDone();
            Response appended = http.post("/ojs/v1/queues/woken/messages", Map.of("type", "t", "payload",
                    Map.of("n", 7)));
            assertThat(appended.status()).isEqualTo(201);

            Response woken = poll.get(15, TimeUnit.SECONDS);
            assertThat(woken.status()).as(woken.toString()).isEqualTo(200);
            assertThat(woken.header("Content-Type")).startsWith(OjsClient.OJS_JSON);
            assertThat(woken.header("OJS-Version")).isNotBlank();
            assertThat(woken.header("X-Request-Id")).isNotBlank();
            JsonNode body = woken.json();
            assertThat(body.path("batch_id").asLong()).isPositive();
            assertThat(body.path("messages")).hasSize(1);
            assertThat(body.path("messages").get(0).path("payload").path("n").asInt()).isEqualTo(7);
            assertThat(body.path("messages").get(0).path("type").asString()).isEqualTo("t");
            assertThat(dispatches.resultDispatches("/ojs/v1/queues/woken/receive")).isZero();

            // exactly once: the batch is outstanding, and the same batch comes back until it is acked
            Response again = http.post("/ojs/v1/queues/woken/receive", Map.of("consumer", "c"));
            assertThat(again.json().path("batch_id").asLong()).isEqualTo(body.path("batch_id").asLong());
        }
        finally {
            client.shutdownNow();
        }
    }

    @Test
    void aLongPollAnsweredAtItsDeadlineIsWrittenWithoutAnAsyncDispatch() {
        http.post("/ojs/v1/queues/idle/consumers", Map.of("consumer", "c"));
        Response idle = http.post("/ojs/v1/queues/idle/receive", Map.of("consumer", "c", "wait_ms", 300));
        assertThat(idle.status()).as(idle.toString()).isEqualTo(200);
        assertThat(idle.header("Content-Type")).startsWith(OjsClient.OJS_JSON);
        assertThat(idle.json().path("batch_id").isNull()).isTrue();
        assertThat(idle.json().path("messages")).isEmpty();
        assertThat(idle.json().has("start_tick")).isTrue();
        // the filter saw the request (on an async dispatch of its own when its body arrived after its headers)
        assertThat(dispatches.count("/ojs/v1/queues/idle/receive", DispatcherType.REQUEST)
                + dispatches.count("/ojs/v1/queues/idle/receive", DispatcherType.ASYNC)).isPositive();
        assertThat(dispatches.resultDispatches("/ojs/v1/queues/idle/receive")).isZero();
    }

    @Test
    void aLongPollThatFailsAnswersThroughTheErrorHandling() {
        Response missing = http.post("/ojs/v1/queues/no-such-queue/receive", Map.of("consumer", "c", "wait_ms",
                2000));
        assertThat(missing.status()).as(missing.toString()).isEqualTo(404);
        assertThat(missing.errorCode()).isEqualTo("not_found");
    }

    /** Counts the dispatches of each request URI, by type, and the REQUEST dispatches that left it asynchronous. */
    static final class Dispatches extends OncePerRequestFilter {

        private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

        @Override
        protected boolean shouldNotFilterAsyncDispatch() {
            return false;
        }

        @Override
        protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
                throws ServletException, IOException {
            String uri = request.getRequestURI();
            counts.computeIfAbsent(uri + " " + request.getDispatcherType(), key -> new AtomicInteger())
                    .incrementAndGet();
            if (request.getDispatcherType() == DispatcherType.ASYNC
                    && WebAsyncUtils.getAsyncManager(request).hasConcurrentResult()) {
                // Spring MVC's dispatch of an asynchronous result (not the one after a body read asynchronously)
                counts.computeIfAbsent(uri + " result-dispatch", key -> new AtomicInteger()).incrementAndGet();
            }
            try {
                chain.doFilter(request, response);
            }
            finally {
                if (request.isAsyncStarted()) {
                    counts.computeIfAbsent(uri + " async-started", key -> new AtomicInteger()).incrementAndGet();
                }
            }
        }

        int count(String uri, DispatcherType type) {
            return count(uri + " " + type);
        }

        int resultDispatches(String uri) {
            return count(uri + " result-dispatch");
        }

        private int count(String key) {
            AtomicInteger count = counts.get(key);
            return count == null ? 0 : count.get();
        }

        void awaitAsyncStarted(String uri, int times) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            while (System.nanoTime() < deadline) {
                AtomicInteger count = counts.get(uri + " async-started");
                if (count != null && count.get() >= times) {
                    return;
                }
                Thread.sleep(5);
            }
            throw new AssertionError("the request to " + uri + " did not go asynchronous: " + counts);
        }

        void clear() {
            counts.clear();
        }
    }

    @TestConfiguration
    static class CountDispatches {

        @Bean
        Dispatches dispatches() {
            return new Dispatches();
        }

        @Bean
        FilterRegistrationBean<Dispatches> dispatchesRegistration(Dispatches dispatches) {
            FilterRegistrationBean<Dispatches> registration = new FilterRegistrationBean<>(dispatches);
            registration.setDispatcherTypes(DispatcherType.REQUEST, DispatcherType.ASYNC);
            registration.addUrlPatterns("/ojs/v1/queues/*");
            return registration;
        }
    }
}
