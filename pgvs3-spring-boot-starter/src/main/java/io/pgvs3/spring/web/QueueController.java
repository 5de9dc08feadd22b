package io.pgvs3.spring.web;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.catalog.QueueOverview;
import io.pgvs3.core.cluster.Cluster;
import io.pgvs3.core.cluster.ClusterRouter;
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

    private final ClusterRouter router;

    public QueueController(ClusterRouter router) {
        this.router = router;
    }

    @GetMapping("/ojs/v1/queues")
    public Map<String, Object> list(@RequestParam(defaultValue = "100") int limit,
            @RequestParam(defaultValue = "0") int offset) {
        Pagination.check(limit, offset, MAX_LIMIT);
        if (router.isSingle()) {
            QueueCatalog catalog = router.defaultCluster().catalog();
            List<Map<String, Object>> queues = catalog.overview(limit, offset).stream()
                    .map(queue -> view(queue, null)).toList();
            return Map.of("queues", queues,
                    "pagination", Pagination.view(catalog.count(), limit, offset, queues.size()));
        }
        // every cluster's first offset + limit names, merged by name, then the page cut from them
        List<Map<String, Object>> merged = new ArrayList<>();
        long total = 0;
        for (Cluster cluster : router.clusters()) {
            cluster.catalog().overview(offset + limit, 0).forEach(queue -> merged.add(view(queue, cluster.name())));
            total += cluster.catalog().count();
        }
        merged.sort(Comparator.comparing(queue -> (String) queue.get("name")));
        List<Map<String, Object>> queues = merged.subList(Math.min(offset, merged.size()),
                Math.min(offset + limit, merged.size()));
        return Map.of("queues", queues, "pagination", Pagination.view(total, limit, offset, queues.size()));
    }

    @DeleteMapping("/ojs/v1/queues/{queue}")
    public Map<String, Object> delete(@PathVariable String queue) {
        QueueName name = QueueName.of(queue);
        if (!router.forQueue(queue).catalog().drop(name)) {
            throw Pgvs3Exception.notFound("queue '" + queue + "' does not exist");
        }
        return Map.of("deleted", true, "queue", queue);
    }

    /** @param cluster the queue's cluster, shown only when there are several */
    private static Map<String, Object> view(QueueOverview queue, String cluster) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("name", queue.name());
        if (cluster != null) {
            view.put("cluster", cluster);
        }
        view.put("status", queue.paused() ? "paused" : "active");
        view.put("paused", queue.paused());
        view.put("schema", queue.schema());
        view.put("created_at", queue.createdAt().toString());
        view.put("estimated_counts", Map.of("jobs", queue.estimatedJobs(), "stream_events", queue.estimatedStreamEvents()));
        return view;
    }
}
