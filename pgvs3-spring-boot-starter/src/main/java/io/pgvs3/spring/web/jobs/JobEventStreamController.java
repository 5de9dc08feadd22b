package io.pgvs3.spring.web.jobs;

import java.util.LinkedHashMap;
import java.util.Map;

import io.pgvs3.core.cluster.ClusterRouter;
import io.pgvs3.core.job.JobEventStreams;
import io.pgvs3.core.json.JsonFields;
import tools.jackson.databind.JsonNode;

import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * Job lifecycle events of a queue as a stream: {@code GET /ojs/v1/queues/{q}/job-events} (the stream, or null),
 * {@code POST} with an optional body {@code {"stream": "name"}} to send them to that stream (default
 * {@code <q>.events}), {@code DELETE} to stop. Changing it needs the {@code admin} scope.
 */
@RestController
public class JobEventStreamController {

    private final ClusterRouter router;

    public JobEventStreamController(ClusterRouter router) {
        this.router = router;
    }

    @GetMapping("/ojs/v1/queues/{queue}/job-events")
    public Map<String, Object> get(@PathVariable String queue) {
        return view(queue, eventStreams(queue).stream(queue).orElse(null));
    }

    @PostMapping("/ojs/v1/queues/{queue}/job-events")
    public Map<String, Object> enable(@PathVariable String queue, @RequestBody(required = false) JsonNode body) {
        String stream = null;
        if (body != null && !body.isMissingNode()) {
            stream = JsonFields.optionalString(JsonFields.object(body), "stream");
        }
        return view(queue, eventStreams(queue).enable(queue, stream));
    }

    @DeleteMapping("/ojs/v1/queues/{queue}/job-events")
    public Map<String, Object> disable(@PathVariable String queue) {
        eventStreams(queue).disable(queue);
        return view(queue, null);
    }

    /** A queue's job events go to a stream on the queue's own cluster, written by that cluster's job functions. */
    private JobEventStreams eventStreams(String queue) {
        return router.forQueue(queue).jobEvents().eventStreams();
    }

    private static Map<String, Object> view(String queue, String stream) {
        Map<String, Object> events = new LinkedHashMap<>();
        events.put("queue", queue);
        events.put("stream", stream);
        events.put("enabled", stream != null);
        return Map.of("job_events", events);
    }
}
