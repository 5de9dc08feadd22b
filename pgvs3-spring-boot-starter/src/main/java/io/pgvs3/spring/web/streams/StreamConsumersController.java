package io.pgvs3.spring.web.streams;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletionException;

import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.cluster.Cluster;
import io.pgvs3.core.cluster.ClusterRouter;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.core.json.JsonFields;
import io.pgvs3.core.stream.ReceiveTarget;
import io.pgvs3.core.stream.StreamStore;
import io.pgvs3.core.stream.Subscription;
import jakarta.servlet.http.HttpServletRequest;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.async.DeferredResult;

/**
 * Consumers and receiving: subscribe, list, unsubscribe, receive (with an optional {@code wait_ms} long-poll) and
 * batch inspection.
 */
@RestController
public class StreamConsumersController {

    static final int DEFAULT_MAX = 100;

    /** How long past its wait a long-poll may take to answer before the container gives up on it. */
    private static final Duration ASYNC_MARGIN = Duration.ofSeconds(60);

    private final ClusterRouter router;
    private final ClusterLongPolls longPolls;
    private final Duration maxWait;
    private final LongPollAnswers answers;

    /** Long-polls answer through Spring MVC's async dispatch. */
    public StreamConsumersController(ClusterRouter router, ClusterLongPolls longPolls, Duration maxWait) {
        this(router, longPolls, maxWait, null);
    }

    /**
     * Long-polls answer on the thread that found their answer, written with {@code mapper} (the one Spring MVC
     * writes the other answers with); see {@link LongPollAnswers}.
     */
    public StreamConsumersController(ClusterRouter router, ClusterLongPolls longPolls, Duration maxWait,
            JsonMapper mapper) {
        this.router = router;
        this.longPolls = longPolls;
        this.maxWait = maxWait;
        this.answers = new LongPollAnswers(mapper);
    }

    @PostMapping("/ojs/v1/queues/{queue}/consumers")
    public ResponseEntity<Map<String, Object>> subscribe(@PathVariable String queue, @RequestBody JsonNode body) {
        JsonFields.object(body);
        String consumer = StreamRequests.name(JsonFields.requiredString(body, "consumer"), "consumer");
        Long fromTick = JsonFields.optionalLong(body, "from_tick");
        if (fromTick != null && fromTick < 0) {
            throw Pgvs3Exception.invalidRequest("'from_tick' must not be negative", "from_tick");
        }
        Subscription subscription = router.forQueue(queue).streams().subscribe(queue, consumer, fromTick);
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("name", subscription.consumer());
        view.put("last_tick", subscription.lastTick());
        return ResponseEntity.status(subscription.created() ? HttpStatus.CREATED : HttpStatus.OK)
                .body(Map.of("consumer", view));
    }

    @GetMapping("/ojs/v1/queues/{queue}/consumers")
    public Map<String, Object> consumers(@PathVariable String queue) {
        return Map.of("consumers", router.forQueue(queue).streams().consumers(queue));
    }

    @DeleteMapping("/ojs/v1/queues/{queue}/consumers/{consumer}")
    public Map<String, Object> unsubscribe(@PathVariable String queue, @PathVariable String consumer) {
        StreamRequests.name(consumer, "consumer");
        if (!router.forQueue(queue).streams().unsubscribe(queue, consumer)) {
            throw Pgvs3Exception.notFound("consumer '" + consumer + "' is not subscribed to queue '" + queue + "'");
        }
        return Map.of("deleted", true, "consumer", consumer);
    }

    @PostMapping("/ojs/v1/queues/{queue}/receive")
    public DeferredResult<Map<String, Object>> receive(@PathVariable String queue, @RequestBody JsonNode body,
            HttpServletRequest request) {
        JsonFields.object(body);
        QueueName name = QueueName.of(queue);
        String consumer = StreamRequests.name(JsonFields.requiredString(body, "consumer"), "consumer");
        String member = JsonFields.optionalString(body, "member");
        if (member != null) {
            StreamRequests.name(member, "member");
        }
        int max = StreamRequests.intInRange(body, "max", DEFAULT_MAX, 1, StreamStore.MAX_RECEIVE);
        Long waitMs = JsonFields.optionalLong(body, "wait_ms");
        if (waitMs != null && waitMs < 0) {
            throw Pgvs3Exception.invalidRequest("'wait_ms' must not be negative", "wait_ms");
        }
        Cluster cluster = router.forQueue(queue);
        StreamStore streams = cluster.streams();
        Duration wait = waitMs == null ? Duration.ZERO : Duration.ofMillis(Math.min(waitMs, maxWait.toMillis()));

        // the async timeout outlasts the wait by far: a receive that leases a batch must not end as a 5xx
        DeferredResult<Map<String, Object>> result = new DeferredResult<>(wait.toMillis() + ASYNC_MARGIN.toMillis());
        if (wait.isZero()) {
            result.setResult(StreamViews.batch(streams.receive(queue, consumer, member, max)));
            return result;
        }
        // even the first attempt runs off the request thread, on the long-poll workers: hundreds of receives arriving
        // together then queue there, not on the request threads and the connection pool other requests need; that
        // first look is a cheap check shared with the receives that arrived meanwhile, and a receive runs only when
        // the consumer may have something
        longPolls.forCluster(cluster).receive(new ReceiveTarget(name, consumer, member), wait,
                () -> streams.receiveMarked(queue, consumer, member, max))
                .whenComplete((batch, failure) -> {
                    if (failure != null) {
                        result.setErrorResult(failure instanceof CompletionException wrapped
                                && wrapped.getCause() != null ? wrapped.getCause() : failure);
                    }
                    else {
                        Map<String, Object> view = StreamViews.batch(batch);
                        if (!answers.write(request, result, view)) {
                            result.setResult(view);
                        }
                    }
                });
        return result;
    }

    @GetMapping("/ojs/v1/queues/{queue}/batches/{batchId}")
    public Map<String, Object> batch(@PathVariable String queue, @PathVariable long batchId) {
        JsonNode batch = router.forQueue(queue).streams().batch(queue, batchId).orElseThrow(() -> Pgvs3Exception.notFound(
                "batch " + batchId + " of queue '" + queue + "' is not outstanding"));
        return Map.of("batch", batch);
    }
}
