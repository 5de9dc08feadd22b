package io.pgvs3.spring.template;

import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.pgvs3.core.cluster.ClusterRouter;
import io.pgvs3.core.stream.StreamConfig;
import io.pgvs3.core.stream.StreamStore;
import tools.jackson.databind.JsonNode;

/**
 * Manages streams from application code: a queue's dead letters (list, replay, purge) and its settings
 * ({@code max_retries}, retention, dedupe window). The same operations as the HTTP routes, on the application's
 * {@code DataSource}, or on the queue's cluster for a queue routed to another one ({@code pgvs3.clusters}).
 */
public class StreamAdmin {

    private final Function<String, StreamStore> stores;

    public StreamAdmin(StreamStore store) {
        this.stores = queue -> store;
    }

    public StreamAdmin(ClusterRouter router) {
        this.stores = queue -> router.forQueue(queue).streams();
    }

    /** A page of dead letters, oldest first. */
    public Page deadLetters(String queue, int limit, int offset) {
        JsonNode page = stores.apply(queue).deadLetters(queue, limit, offset);
        List<StreamDeadLetter> letters = new ArrayList<>();
        for (JsonNode letter : page.path("dead_letters")) {
            Map<String, String> headers = new LinkedHashMap<>();
            letter.path("headers").properties()
                    .forEach(entry -> headers.put(entry.getKey(), entry.getValue().asString()));
            letters.add(new StreamDeadLetter(letter.path("id").asLong(), letter.path("message_id").asString(),
                    letter.path("type").asString(), letter.path("payload"), Map.copyOf(headers),
                    letter.path("retry_count").asInt(), letter.path("reason").isNull() ? null
                            : letter.path("reason").asString(),
                    letter.path("consumer").isNull() ? null : letter.path("consumer").asString(),
                    OffsetDateTime.parse(letter.path("dead_at").asString()).toInstant()));
        }
        return new Page(List.copyOf(letters), page.path("total").asLong());
    }

    /** Appends one dead letter to the log again, with its retry count reset; false when there is no such letter. */
    public boolean replay(String queue, long deadLetterId) {
        return stores.apply(queue).replayDeadLetter(queue, deadLetterId);
    }

    /** Appends every dead letter of the queue to the log again; returns how many. */
    public int replayAll(String queue) {
        return stores.apply(queue).replayDeadLetters(queue);
    }

    /** Deletes the dead letters older than {@code olderThan} ({@code Duration.ZERO}: all); returns how many. */
    public int purge(String queue, Duration olderThan) {
        return stores.apply(queue).purgeDeadLetters(queue, olderThan);
    }

    public StreamConfig config(String queue) {
        return stores.apply(queue).config(queue);
    }

    /** How often a message may be nacked for retry before it is dead-lettered (0 to 1000). */
    public StreamConfig setMaxRetries(String queue, int maxRetries) {
        return stores.apply(queue).updateConfig(queue, maxRetries, null);
    }

    /** The minimum time events are kept; the log rotates every half of it. */
    public StreamConfig setRetention(String queue, Duration retention) {
        return stores.apply(queue).updateConfig(queue, null, retention);
    }

    /**
     * How long a dedupe key makes a repeated append of it a duplicate; at most the retention (5 minutes for a new
     * queue).
     */
    public StreamConfig setDedupeWindow(String queue, Duration dedupeWindow) {
        return stores.apply(queue).updateConfig(queue, null, null, dedupeWindow);
    }

    /**
     * @param deadLetters the letters of the page
     * @param total       how many dead letters the queue holds
     */
    public record Page(List<StreamDeadLetter> deadLetters, long total) {
    }
}
