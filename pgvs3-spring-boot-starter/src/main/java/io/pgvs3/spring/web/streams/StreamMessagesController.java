package io.pgvs3.spring.web.streams;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.pgvs3.core.cluster.ClusterRouter;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.core.json.JsonFields;
import io.pgvs3.core.stream.AppendResult;
import io.pgvs3.core.stream.NewStreamMessage;
import io.pgvs3.core.stream.StreamStore;
import io.pgvs3.spring.metrics.Pgvs3Metrics;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** Appends: {@code POST /ojs/v1/queues/{q}/messages} and {@code …/messages/batch}. Both create the queue. */
@RestController
public class StreamMessagesController {

    private final ClusterRouter router;
    private final StreamRequests requests;
    private final Pgvs3Metrics metrics;

    public StreamMessagesController(ClusterRouter router, JsonMapper mapper, long maxPayloadBytes) {
        this(router, mapper, maxPayloadBytes, Pgvs3Metrics.NOOP);
    }

    public StreamMessagesController(ClusterRouter router, JsonMapper mapper, long maxPayloadBytes,
            Pgvs3Metrics metrics) {
        this.router = router;
        this.requests = new StreamRequests(mapper, maxPayloadBytes);
        this.metrics = metrics;
    }

    /** 201 when the message was stored; 200 when its dedupe key was appended before (the first append's answer). */
    @PostMapping("/ojs/v1/queues/{queue}/messages")
    public ResponseEntity<Map<String, Object>> append(@PathVariable String queue, @RequestBody JsonNode body) {
        NewStreamMessage message = requests.message(JsonFields.object(body), "");
        AppendResult result = router.forQueue(queue).streams().append(queue, message);
        if (!result.duplicate()) {
            metrics.appended(queue, 1);
        }
        return ResponseEntity.status(result.duplicate() ? HttpStatus.OK : HttpStatus.CREATED)
                .body(Map.of("message", StreamViews.appended(result)));
    }

    /** 201 when at least one message was stored; 200 when every message was a duplicate. */
    @PostMapping("/ojs/v1/queues/{queue}/messages/batch")
    public ResponseEntity<Map<String, Object>> appendBatch(@PathVariable String queue, @RequestBody JsonNode body) {
        JsonNode array = JsonFields.object(body).get("messages");
        if (array == null || !array.isArray()) {
            throw Pgvs3Exception.invalidRequest("'messages' must be an array of 1 to " + StreamStore.MAX_BATCH
                    + " messages", "messages");
        }
        if (array.isEmpty() || array.size() > StreamStore.MAX_BATCH) {
            throw Pgvs3Exception.invalidRequest("'messages' holds " + array.size() + " messages; a batch holds 1 to "
                    + StreamStore.MAX_BATCH, "messages");
        }
        List<NewStreamMessage> messages = new ArrayList<>(array.size());
        for (int i = 0; i < array.size(); i++) {
            messages.add(requests.message(array.get(i), "messages[" + i + "]: "));
        }
        List<AppendResult> results = router.forQueue(queue).streams().append(queue, messages);
        int duplicates = (int) results.stream().filter(AppendResult::duplicate).count();
        if (duplicates < results.size()) {
            metrics.appended(queue, results.size() - duplicates);
        }
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("messages", results.stream().map(StreamMessagesController::idAndSeq).toList());
        view.put("count", results.size());
        view.put("duplicates", duplicates);
        return ResponseEntity.status(duplicates == results.size() ? HttpStatus.OK : HttpStatus.CREATED).body(view);
    }

    private static Map<String, Object> idAndSeq(AppendResult result) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("id", result.id());
        view.put("seq", result.seq());
        view.put("duplicate", result.duplicate());
        return view;
    }
}
