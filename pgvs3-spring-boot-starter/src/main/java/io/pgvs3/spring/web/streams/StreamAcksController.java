package io.pgvs3.spring.web.streams;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.pgvs3.core.cluster.ClusterRouter;
import io.pgvs3.core.json.JsonFields;
import io.pgvs3.core.stream.NackResult;
import tools.jackson.databind.JsonNode;

import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** {@code POST /ojs/v1/streams/ack} and {@code POST /ojs/v1/streams/nack}. */
@RestController
public class StreamAcksController {

    private static final int MAX_REASON = 4096;

    private final ClusterRouter router;

    public StreamAcksController(ClusterRouter router) {
        this.router = router;
    }

    @PostMapping("/ojs/v1/streams/ack")
    public Map<String, Object> ack(@RequestBody JsonNode body) {
        JsonFields.object(body);
        String queue = JsonFields.requiredString(body, "queue");
        long batchId = StreamRequests.requiredLong(body, "batch_id");
        boolean acked = router.forQueue(queue).streams().ack(queue, batchId);
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("acked", acked);
        view.put("batch_id", batchId);
        return view;
    }

    @PostMapping("/ojs/v1/streams/nack")
    public Map<String, Object> nack(@RequestBody JsonNode body) {
        JsonFields.object(body);
        String queue = JsonFields.requiredString(body, "queue");
        long batchId = StreamRequests.requiredLong(body, "batch_id");
        String messageId = JsonFields.requiredString(body, "message_id");
        Duration retryAfter = Durations.optional(body, "retry_after");
        String reason = JsonFields.optionalString(body, "reason");
        if (reason != null && reason.length() > MAX_REASON) {
            reason = reason.substring(0, MAX_REASON);
        }
        NackResult result = router.forQueue(queue).streams().nack(queue, batchId, messageId, retryAfter, reason);
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("message_id", result.messageId());
        view.put("action", result.action());
        view.put("retry_count", result.retryCount());
        return view;
    }
}
