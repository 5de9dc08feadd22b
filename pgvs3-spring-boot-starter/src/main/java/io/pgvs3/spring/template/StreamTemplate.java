package io.pgvs3.spring.template;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.pgvs3.core.cluster.ClusterRouter;
import io.pgvs3.core.stream.AppendResult;
import io.pgvs3.core.stream.NewStreamMessage;
import io.pgvs3.core.stream.StreamStore;
import io.pgvs3.spring.metrics.Pgvs3Metrics;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * Appends messages to streams from application code. Appends run on the application's {@code DataSource} and join
 * the caller's Spring transaction: a message appended inside a transaction is visible to consumers only if that
 * transaction commits (a transactional outbox with no outbox table).
 * <p>
 * A queue routed to another cluster ({@code pgvs3.clusters}) is appended to on that cluster's pool, in a transaction
 * of its own that commits at once: only queues of the default cluster join the caller's transaction.
 */
public class StreamTemplate {

    private final Function<String, StreamStore> stores;
    private final JsonMapper mapper;
    private final Pgvs3Metrics metrics;

    /** A template on one store. */
    public StreamTemplate(StreamStore store, JsonMapper mapper, Pgvs3Metrics metrics) {
        this(queue -> store, mapper, metrics);
    }

    /** A template appending to each queue on its cluster. */
    public StreamTemplate(ClusterRouter router, JsonMapper mapper, Pgvs3Metrics metrics) {
        this(queue -> router.forQueue(queue).streams(), mapper, metrics);
    }

    private StreamTemplate(Function<String, StreamStore> stores, JsonMapper mapper, Pgvs3Metrics metrics) {
        this.stores = stores;
        this.mapper = mapper;
        this.metrics = metrics;
    }

    public AppendResult append(String queue, String type, Object payload) {
        return append(queue, OutgoingMessage.of(type, payload));
    }

    public AppendResult append(String queue, String type, Object payload, Map<String, String> headers) {
        return append(queue, OutgoingMessage.of(type, payload).withHeaders(headers));
    }

    public AppendResult append(String queue, OutgoingMessage message) {
        AppendResult result = stores.apply(queue).append(queue, toNew(message));
        if (!result.duplicate()) {
            AfterCommit.run(() -> metrics.appended(queue, 1));
        }
        return result;
    }

    /**
     * Appends all messages atomically, in order. A message whose dedupe key the queue stored within its dedupe
     * window, or that an earlier message of the list carries, is answered with that append's result, marked
     * {@link AppendResult#duplicate()}, and not stored.
     */
    public List<AppendResult> appendAll(String queue, List<OutgoingMessage> messages) {
        List<NewStreamMessage> batch = new ArrayList<>(messages.size());
        for (OutgoingMessage message : messages) {
            batch.add(toNew(message));
        }
        List<AppendResult> results = stores.apply(queue).append(queue, batch);
        int stored = (int) results.stream().filter(result -> !result.duplicate()).count();
        AfterCommit.run(() -> metrics.appended(queue, stored));
        return results;
    }

    private NewStreamMessage toNew(OutgoingMessage message) {
        return new NewStreamMessage(message.id(), message.type(), json(message.payload()), message.headers(),
                message.dedupeKey());
    }

    private String json(Object payload) {
        try {
            return mapper.writeValueAsString(payload);
        }
        catch (JacksonException ex) {
            throw new IllegalArgumentException("Cannot write the payload as JSON: " + ex.getOriginalMessage(), ex);
        }
    }
}
