package io.pgvs3.server.streams;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.pgvs3.server.ServerTestSupport;
import io.pgvs3.test.OjsClient.Response;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

class StreamRoutesTest extends ServerTestSupport {

    @Test
    void walkThroughEveryRoute() {
        Response appended = http.post("/ojs/v1/queues/orders/messages",
                Map.of("type", "order.created", "payload", Map.of("order", 1), "headers", Map.of("trace", "t1")));
        assertThat(appended.status()).as(appended.toString()).isEqualTo(201);
        assertThat(appended.header("Content-Type")).startsWith("application/openjobspec+json");
        String firstId = appended.json().path("message").path("id").asString();

        Response subscribed = http.post("/ojs/v1/queues/orders/consumers", Map.of("consumer", "billing"));
        assertThat(subscribed.status()).isEqualTo(201);
        assertThat(subscribed.json().path("consumer").path("name").asString()).isEqualTo("billing");
        assertThat(http.post("/ojs/v1/queues/orders/consumers", Map.of("consumer", "billing")).status()).isEqualTo(200);

        Response batch = http.post("/ojs/v1/queues/orders/messages/batch", Map.of("messages", List.of(
                Map.of("type", "order.created", "payload", Map.of("order", 2)),
                Map.of("type", "order.created", "payload", List.of(3), "id", "custom-3"))));
        assertThat(batch.status()).isEqualTo(201);
        assertThat(batch.json().path("count").asInt()).isEqualTo(2);
        assertThat(batch.json().path("messages").get(1).path("id").asString()).isEqualTo("custom-3");

        JsonNode received = http.post("/ojs/v1/queues/orders/receive", Map.of("consumer", "billing", "max", 10)).json();
        long batchId = received.path("batch_id").asLong();
        assertThat(received.path("messages")).hasSize(3);
        JsonNode first = received.path("messages").get(0);
        assertThat(first.path("id").asString()).isEqualTo(firstId);
        assertThat(first.path("payload").path("order").asInt()).isEqualTo(1);
        assertThat(first.path("headers").path("trace").asString()).isEqualTo("t1");
        assertThat(first.path("retry_count").asInt()).isZero();

        JsonNode inspected = http.get("/ojs/v1/queues/orders/batches/" + batchId).json().path("batch");
        assertThat(inspected.path("consumer").asString()).isEqualTo("billing");
        assertThat(inspected.path("count").asInt()).isEqualTo(3);
        JsonNode consumers = http.get("/ojs/v1/queues/orders/consumers").json().path("consumers");
        assertThat(consumers.get(0).path("batches").get(0).path("id").asLong()).isEqualTo(batchId);

        Response nack = http.post("/ojs/v1/streams/nack", Map.of("queue", "orders", "batch_id", batchId,
                "message_id", "custom-3", "retry_after", "0s", "reason", "boom"));
        assertThat(nack.status()).as(nack.toString()).isEqualTo(200);
        assertThat(nack.json().path("action").asString()).isEqualTo("retry");
        assertThat(nack.json().path("retry_count").asInt()).isEqualTo(1);

        Response ack = http.post("/ojs/v1/streams/ack", Map.of("queue", "orders", "batch_id", batchId));
        assertThat(ack.json().path("acked").asBoolean()).isTrue();
        assertThat(http.post("/ojs/v1/streams/ack", Map.of("queue", "orders", "batch_id", batchId))
                .json().path("acked").asBoolean()).isFalse();
        assertThat(http.get("/ojs/v1/queues/orders/batches/" + batchId).status()).isEqualTo(404);

        // maintenance (every 100 ms in tests) moves the retry back into the log
        JsonNode retried = http.post("/ojs/v1/queues/orders/receive",
                Map.of("consumer", "billing", "wait_ms", 5000)).json();
        assertThat(retried.path("messages").get(0).path("id").asString()).isEqualTo("custom-3");
        assertThat(retried.path("messages").get(0).path("retry_count").asInt()).isEqualTo(1);

        Response config = http.post("/ojs/v1/queues/orders/config", Map.of("max_retries", 0, "retention", "48h"));
        assertThat(config.status()).isEqualTo(200);
        assertThat(config.json().path("config").path("retention_ms").asLong()).isEqualTo(48L * 3600 * 1000);
        assertThat(http.get("/ojs/v1/queues/orders/config").json().path("config").path("max_retries").asInt()).isZero();

        long retriedBatch = retried.path("batch_id").asLong();
        Response dead = http.post("/ojs/v1/streams/nack", Map.of("queue", "orders", "batch_id", retriedBatch,
                "message_id", "custom-3", "reason", "poison"));
        assertThat(dead.json().path("action").asString()).isEqualTo("dead_letter");
        http.post("/ojs/v1/streams/ack", Map.of("queue", "orders", "batch_id", retriedBatch));

        JsonNode dlq = http.get("/ojs/v1/queues/orders/dlq?limit=10").json();
        assertThat(dlq.path("pagination").path("total").asInt()).isEqualTo(1);
        long letter = dlq.path("dead_letters").get(0).path("id").asLong();
        assertThat(http.post("/ojs/v1/queues/orders/dlq/" + letter + "/replay", "").status()).isEqualTo(200);
        assertThat(http.post("/ojs/v1/queues/orders/dlq/" + letter + "/replay", "").status()).isEqualTo(404);
        assertThat(http.post("/ojs/v1/queues/orders/dlq/replay", "").json().path("replayed").asInt()).isZero();
        assertThat(http.delete("/ojs/v1/queues/orders/dlq?older_than=720h").json().path("purged").asInt()).isZero();

        JsonNode info = http.get("/ojs/v1/queues/orders/info").json().path("stream");
        assertThat(info.path("events").asLong()).isEqualTo(5);
        assertThat(info.path("consumers").asInt()).isEqualTo(1);
        assertThat(info.path("rotation_period_seconds").asLong()).isEqualTo(24 * 3600);

        Response deleted = http.delete("/ojs/v1/queues/orders/consumers/billing");
        assertThat(deleted.json().path("deleted").asBoolean()).isTrue();
        assertThat(http.delete("/ojs/v1/queues/orders/consumers/billing").status()).isEqualTo(404);
    }

    @Test
    void longPollReturnsAsSoonAsAnEventCommits() throws Exception {
        http.post("/ojs/v1/queues/waiting/consumers", Map.of("consumer", "c"));
        // a thread of its own: on 2 cores the common pool has one worker, which other work may be holding
        ExecutorService client = Executors.newSingleThreadExecutor();
        CountDownLatch sending = new CountDownLatch(1);
        CompletableFuture<Response> poll = CompletableFuture.supplyAsync(() -> {
            sending.countDown();
            return http.post("/ojs/v1/queues/waiting/receive", Map.of("consumer", "c", "wait_ms", 5000));
        }, client);
        sending.await();
        long started = System.nanoTime();
        Thread.sleep(700);
        assertThat(poll).isNotDone();
        http.post("/ojs/v1/queues/waiting/messages", Map.of("type", "t", "payload", Map.of()));
        Response response = poll.get(10, TimeUnit.SECONDS);
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        client.shutdown();
        assertThat(response.json().path("messages")).hasSize(1);
        assertThat(elapsedMs).isLessThan(3000);

        // with nothing to deliver it answers an empty batch after the wait
        http.post("/ojs/v1/streams/ack", Map.of("queue", "waiting", "batch_id", response.json().path("batch_id").asLong()));
        long idleStart = System.nanoTime();
        Response idle = http.post("/ojs/v1/queues/waiting/receive", Map.of("consumer", "c", "wait_ms", 400));
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - idleStart)).isGreaterThanOrEqualTo(350);
        assertThat(idle.json().path("batch_id").isNull()).isTrue();
        assertThat(idle.json().path("messages")).isEmpty();
    }

    @Test
    void maxCapsTheBatchAndTheRestOfTheRangeFollows() {
        http.post("/ojs/v1/queues/big/consumers", Map.of("consumer", "c"));
        List<Map<String, Object>> messages = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            messages.add(Map.of("type", "t", "payload", i));
        }
        assertThat(http.post("/ojs/v1/queues/big/messages/batch", Map.of("messages", messages)).status()).isEqualTo(201);
        Response first = http.post("/ojs/v1/queues/big/receive", Map.of("consumer", "c", "max", 2));
        assertThat(first.status()).isEqualTo(200);
        assertThat(first.json().path("messages").valueStream().map(m -> m.path("payload").asInt())).containsExactly(0, 1);
        JsonNode batch = http.get("/ojs/v1/queues/big/batches/" + first.json().path("batch_id").asLong()).json()
                .path("batch");
        assertThat(batch.path("count").asInt()).isEqualTo(2);
        assertThat(batch.path("complete").asBoolean()).isFalse();
        // not acked: the same two again
        Response again = http.post("/ojs/v1/queues/big/receive", Map.of("consumer", "c", "max", 2));
        assertThat(again.json().path("batch_id").asLong()).isEqualTo(first.json().path("batch_id").asLong());
        assertThat(http.post("/ojs/v1/streams/ack", Map.of("queue", "big", "batch_id",
                first.json().path("batch_id").asLong())).status()).isEqualTo(200);
        JsonNode consumer = http.get("/ojs/v1/queues/big/consumers").json().path("consumers").get(0);
        assertThat(consumer.path("lag").asInt()).isEqualTo(3);
        assertThat(consumer.path("last_seq").asLong()).isPositive();
        List<Integer> rest = new ArrayList<>();
        while (true) {
            Response next = http.post("/ojs/v1/queues/big/receive", Map.of("consumer", "c", "max", 2));
            if (next.json().path("messages").isEmpty()) {
                break;
            }
            assertThat(next.json().path("messages").size()).isLessThanOrEqualTo(2);
            next.json().path("messages").forEach(m -> rest.add(m.path("payload").asInt()));
            http.post("/ojs/v1/streams/ack", Map.of("queue", "big", "batch_id", next.json().path("batch_id").asLong()));
        }
        assertThat(rest).containsExactly(2, 3, 4);
    }

    @Test
    void consumerThatLaggedBehindThousandsOfEventsDrainsThemAll() {
        http.post("/ojs/v1/queues/lagging/consumers", Map.of("consumer", "slow"));
        List<Integer> expected = new ArrayList<>();
        for (int call = 0; call < 40; call++) {
            List<Map<String, Object>> messages = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                expected.add(call * 100 + i);
                messages.add(Map.of("type", "t", "payload", call * 100 + i));
            }
            assertThat(http.post("/ojs/v1/queues/lagging/messages/batch", Map.of("messages", messages)).status())
                    .isEqualTo(201);
        }
        List<Integer> received = new ArrayList<>();
        while (true) {
            Response response = http.post("/ojs/v1/queues/lagging/receive", Map.of("consumer", "slow", "max", 1000));
            assertThat(response.status()).as(response.toString()).isEqualTo(200);
            JsonNode batch = response.json();
            if (batch.path("messages").isEmpty()) {
                break;
            }
            assertThat(batch.path("messages").size()).isLessThanOrEqualTo(1000);
            batch.path("messages").forEach(message -> received.add(message.path("payload").asInt()));
            assertThat(http.post("/ojs/v1/streams/ack", Map.of("queue", "lagging", "batch_id",
                    batch.path("batch_id").asLong())).status()).isEqualTo(200);
        }
        assertThat(received).containsExactlyElementsOf(expected);
    }

    @Test
    void queueViewsShareOneCatalogEntryAndOneDrop() {
        http.post("/ojs/v1/queues/shared/messages", Map.of("type", "t", "payload", 1));
        List<String> names = http.get("/ojs/v1/queues").json().path("queues").valueStream()
                .map(q -> q.path("name").asString()).filter("shared"::equals).toList();
        assertThat(names).hasSize(1);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM pg_tables WHERE schemaname = 's3q_shared' "
                + "AND tablename LIKE 'stream_%'", Long.class)).isGreaterThanOrEqualTo(10);
        assertThat(http.delete("/ojs/v1/queues/shared").status()).isEqualTo(200);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM pg_namespace WHERE nspname = 's3q_shared'", Long.class))
                .isZero();
        assertThat(http.get("/ojs/v1/queues/shared/info").status()).isEqualTo(404);
    }
}
