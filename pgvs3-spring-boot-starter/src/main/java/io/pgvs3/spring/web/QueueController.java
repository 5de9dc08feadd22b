package io.pgvs3.spring.web;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.catalog.QueueOverview;
import io.pgvs3.core.error.Pgvs3Exception;

import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The queue catalog over HTTP: {@code GET /ojs/v1/queues} (job and stream queues alike, each with its paused flag
 * and row counts estimated from PostgreSQL's statistics, so a page costs no table scan) and
 * {@code DELETE /ojs/v1/queues/{q}} (drops both views).
 */
@RestController
public class QueueController {

    static final int MAX_LIMIT = 1000;

    private final QueueCatalog catalog;

    public QueueController(QueueCatalog catalog) {
        this.catalog = catalog;
    }

    @GetMapping("/ojs/v1/queues")
    public Map<String, Object> list(@RequestParam(defaultValue = "100") int limit,
            @RequestParam(defaultValue = "0") int offset) {
        Pagination.check(limit, offset, MAX_LIMIT);
        List<Map<String, Object>> queues = catalog.overview(limit, offset).stream().map(QueueController::view).toList();
        long total = catalog.count();
        return Map.of("queues", queues, "pagination", Pagination.view(total, limit, offset, queues.size()));
    }

    @DeleteMapping("/ojs/v1/queues/{queue}")
    public Map<String, Object> delete(@PathVariable String queue) {
        QueueName name = QueueName.of(queue);
        if (!catalog.drop(name)) {
            throw Pgvs3Exception.notFound("queue '" + queue + "' does not exist");
        }
        return Map.of("deleted", true, "queue", queue);
    }

    private static Map<String, Object> view(QueueOverview queue) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("name", queue.name());
        view.put("status", queue.paused() ? "paused" : "active");
        view.put("paused", queue.paused());
        view.put("schema", queue.schema());
        view.put("created_at", queue.createdAt().toString());
        view.put("estimated_counts", Map.of("jobs", queue.estimatedJobs(), "stream_events", queue.estimatedStreamEvents()));
        return view;
    }
}
