package io.pgvs3.spring.web.jobs;

import java.util.Map;

import io.pgvs3.core.cluster.ClusterRouter;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Job operations on a queue: {@code POST /ojs/v1/queues/{q}/pause} and {@code /resume} (fetch blocked, enqueue
 * allowed), and {@code GET /ojs/v1/queues/{q}/stats} (jobs per state, counted cheaply).
 */
@RestController
public class JobQueueController {

    private final ClusterRouter router;

    public JobQueueController(ClusterRouter router) {
        this.router = router;
    }

    @PostMapping("/ojs/v1/queues/{queue}/pause")
    public Map<String, Object> pause(@PathVariable String queue) {
        return Map.of("queue", router.forQueue(queue).jobQueues().pause(queue));
    }

    @PostMapping("/ojs/v1/queues/{queue}/resume")
    public Map<String, Object> resume(@PathVariable String queue) {
        return Map.of("queue", router.forQueue(queue).jobQueues().resume(queue));
    }

    @GetMapping("/ojs/v1/queues/{queue}/stats")
    public Map<String, Object> stats(@PathVariable String queue) {
        return Map.of("queue", router.forQueue(queue).jobQueues().stats(queue));
    }
}
