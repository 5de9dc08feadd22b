package io.pgvs3.core.job;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Retry policies as an enqueue sends them ({@code jsonb} text) and as the envelope shows them, kept across enqueues:
 * an application uses a handful of policies, and writing and reading one back was a large part of the client's work
 * of a one-job enqueue. At most {@link #LIMIT} policies are kept; others are encoded on each use.
 */
final class RetryEncodings {

    static final int LIMIT = 256;

    /** A policy's {@code jsonb} text and its envelope tree (shared: copy before changing or handing it out). */
    record Encoded(String json, JsonNode node) {
    }

    private final JsonMapper mapper;
    private final Map<RetryPolicy, Encoded> encoded = new ConcurrentHashMap<>();

    RetryEncodings(JsonMapper mapper) {
        this.mapper = mapper;
    }

    Encoded of(RetryPolicy policy) {
        Encoded known = encoded.get(policy);
        if (known != null) {
            return known;
        }
        String json = mapper.writeValueAsString(policy.toMap());
        Encoded fresh = new Encoded(json, JobEnvelope.retry(JsonbNodes.read(mapper, json)));
        if (encoded.size() < LIMIT) {
            encoded.putIfAbsent(policy, fresh);
        }
        return fresh;
    }
}
