package io.pgvs3.spring.web.dashboard;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.pgvs3.core.catalog.QueueName;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /ojs/v1/queues/{q}/history}: the queue's job states and consumer lag over the latest samples of the
 * metrics sampler, oldest first. Without Micrometer (or with {@code pgvs3.metrics.enabled=false}) nothing is
 * sampled, which the body says with {@code "sampling": false}.
 */
@RestController
public class QueueHistoryController {

    private final QueueStatsHistory history;
    private final Duration interval;

    /**
     * @param history  the samples, or null when nothing samples the queues
     * @param interval the sampling interval
     */
    public QueueHistoryController(QueueStatsHistory history, Duration interval) {
        this.history = history;
        this.interval = interval;
    }

    @GetMapping("/ojs/v1/queues/{queue}/history")
    public Map<String, Object> history(@PathVariable String queue) {
        QueueName.of(queue);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("queue", queue);
        body.put("sampling", history != null);
        body.put("interval_seconds", interval.toMillis() / 1000.0);
        body.put("samples", history == null ? List.of()
                : history.of(queue).stream().map(QueueStatsHistory.Sample::view).toList());
        return body;
    }
}
