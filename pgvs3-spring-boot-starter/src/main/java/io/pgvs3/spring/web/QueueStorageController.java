package io.pgvs3.spring.web;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.pgvs3.core.catalog.QueueTableStats;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /ojs/v1/queues/{q}/storage}: the queue's tables with PostgreSQL's estimates of live and dead tuples,
 * their size and their latest vacuum, so an operator sees bloat before it hurts.
 */
@RestController
public class QueueStorageController {

    private final Function<String, QueueTableStats> tableStats;

    public QueueStorageController(QueueTableStats tableStats) {
        this(queue -> tableStats);
    }

    /** @param tableStats the statistics of the queue's cluster */
    public QueueStorageController(Function<String, QueueTableStats> tableStats) {
        this.tableStats = tableStats;
    }

    @GetMapping("/ojs/v1/queues/{queue}/storage")
    public Map<String, Object> storage(@PathVariable String queue) {
        List<Map<String, Object>> tables = tableStats.apply(queue).tables(queue).stream().map(QueueStorageController::view).toList();
        long dead = tables.stream().mapToLong(table -> (Long) table.get("dead_tuples")).sum();
        long bytes = tables.stream().mapToLong(table -> (Long) table.get("total_bytes")).sum();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("queue", queue);
        body.put("tables", tables);
        body.put("dead_tuples", dead);
        body.put("total_bytes", bytes);
        return body;
    }

    private static Map<String, Object> view(QueueTableStats.Table table) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("table", table.name());
        view.put("live_tuples", table.liveTuples());
        view.put("dead_tuples", table.deadTuples());
        view.put("total_bytes", table.totalBytes());
        view.put("last_vacuum", table.lastVacuum() == null ? null : table.lastVacuum().toString());
        view.put("last_analyze", table.lastAnalyze() == null ? null : table.lastAnalyze().toString());
        return view;
    }
}
