package io.pgvs3.spring.web.streams;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.pgvs3.core.cluster.ClusterRouter;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.core.json.JsonFields;
import io.pgvs3.core.stream.StreamStore;
import io.pgvs3.spring.web.Pagination;
import tools.jackson.databind.JsonNode;

import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** A queue's stream info, configuration and dead letters. */
@RestController
public class StreamQueueController {

    static final int MAX_LIMIT = 1000;

    private final ClusterRouter router;

    public StreamQueueController(ClusterRouter router) {
        this.router = router;
    }

    @GetMapping("/ojs/v1/queues/{queue}/info")
    public Map<String, Object> info(@PathVariable String queue) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("queue", queue);
        view.put("stream", streams(queue).info(queue));
        return view;
    }

    @GetMapping("/ojs/v1/queues/{queue}/config")
    public Map<String, Object> config(@PathVariable String queue) {
        return StreamViews.config(streams(queue).config(queue));
    }

    @PostMapping("/ojs/v1/queues/{queue}/config")
    public Map<String, Object> updateConfig(@PathVariable String queue, @RequestBody JsonNode body) {
        JsonFields.object(body);
        Long maxRetries = JsonFields.optionalLong(body, "max_retries");
        if (maxRetries != null && (maxRetries < 0 || maxRetries > 1000)) {
            throw Pgvs3Exception.invalidRequest("'max_retries' must be between 0 and 1000", "max_retries");
        }
        Duration retention = Durations.optional(body, "retention");
        if (retention != null && retention.isZero()) {
            throw Pgvs3Exception.invalidRequest("'retention' must be positive", "retention");
        }
        Duration dedupeWindow = Durations.optional(body, "dedupe_window");
        if (dedupeWindow != null && dedupeWindow.isZero()) {
            throw Pgvs3Exception.invalidRequest("'dedupe_window' must be positive", "dedupe_window");
        }
        return StreamViews.config(streams(queue).updateConfig(queue, maxRetries == null ? null : maxRetries.intValue(),
                retention, dedupeWindow));
    }

    @GetMapping("/ojs/v1/queues/{queue}/dlq")
    public Map<String, Object> deadLetters(@PathVariable String queue, @RequestParam(defaultValue = "100") int limit,
            @RequestParam(defaultValue = "0") int offset) {
        Pagination.check(limit, offset, MAX_LIMIT);
        JsonNode page = streams(queue).deadLetters(queue, limit, offset);
        JsonNode letters = page.get("dead_letters");
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("dead_letters", letters);
        view.put("pagination", Pagination.view(page.get("total").asLong(), limit, offset, letters.size()));
        return view;
    }

    @PostMapping("/ojs/v1/queues/{queue}/dlq/{id}/replay")
    public Map<String, Object> replay(@PathVariable String queue, @PathVariable long id) {
        if (!streams(queue).replayDeadLetter(queue, id)) {
            throw Pgvs3Exception.notFound("dead letter " + id + " of queue '" + queue + "' does not exist");
        }
        return Map.of("replayed", 1, "id", id);
    }

    @PostMapping("/ojs/v1/queues/{queue}/dlq/replay")
    public Map<String, Object> replayAll(@PathVariable String queue) {
        return Map.of("replayed", streams(queue).replayDeadLetters(queue));
    }

    @DeleteMapping("/ojs/v1/queues/{queue}/dlq")
    public Map<String, Object> purge(@PathVariable String queue, @RequestParam("older_than") String olderThan) {
        return Map.of("purged", streams(queue).purgeDeadLetters(queue, Durations.parse(olderThan, "older_than")));
    }

    private StreamStore streams(String queue) {
        return router.forQueue(queue).streams();
    }
}
