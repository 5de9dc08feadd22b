package io.pgvs3.spring.web.streams;

import java.util.LinkedHashMap;

import java.util.Map;

import io.pgvs3.core.stream.AppendResult;
import io.pgvs3.core.stream.ReceivedMessage;
import io.pgvs3.core.stream.StreamBatch;
import io.pgvs3.core.stream.StreamConfig;
import tools.jackson.databind.util.RawValue;

/** The JSON shapes of the stream routes' responses. */
final class StreamViews {

    private StreamViews() {
    }

    static Map<String, Object> appended(AppendResult result) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("id", result.id());
        view.put("seq", result.seq());
        view.put("type", result.type());
        view.put("created_at", result.createdAt().toString());
        view.put("duplicate", result.duplicate());
        return view;
    }

    static Map<String, Object> batch(StreamBatch batch) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("batch_id", batch.batchId());
        view.put("start_tick", batch.startTick());
        view.put("end_tick", batch.endTick());
        view.put("messages", batch.messages().stream().map(StreamViews::message).toList());
        return view;
    }

    private static Map<String, Object> message(ReceivedMessage message) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("id", message.id());
        view.put("seq", message.seq());
        view.put("type", message.type());
        // stored as jsonb, so already valid JSON: written as it is rather than parsed again
        view.put("payload", new RawValue(message.payloadJson()));
        view.put("headers", message.headers());
        view.put("retry_count", message.retryCount());
        view.put("created_at", message.createdAt().toString());
        return view;
    }

    static Map<String, Object> config(StreamConfig config) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("max_retries", config.maxRetries());
        view.put("retention", config.retention().toString());
        view.put("retention_ms", config.retention().toMillis());
        view.put("rotation_period", config.rotationPeriod().toString());
        view.put("dedupe_window", config.dedupeWindow().toString());
        view.put("dedupe_window_ms", config.dedupeWindow().toMillis());
        return Map.of("config", view);
    }

}
