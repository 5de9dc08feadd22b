package io.pgvs3.spring.web;

import java.util.List;
import java.util.Map;

import io.pgvs3.core.Resettable;
import io.pgvs3.core.catalog.QueueCatalog;

import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /ojs/v1/admin/reset}: empties every queue and every piece of pgvs3 state, for conformance runs.
 * Registered only when {@code pgvs3.http.admin-reset-enabled=true}.
 */
@RestController
public class AdminResetController {

    private final QueueCatalog catalog;
    private final List<Resettable> resettables;

    public AdminResetController(QueueCatalog catalog, List<Resettable> resettables) {
        this.catalog = catalog;
        this.resettables = resettables;
    }

    @PostMapping("/ojs/v1/admin/reset")
    public Map<String, Object> reset() {
        catalog.dropAll();
        resettables.forEach(Resettable::reset);
        return Map.of("reset", true);
    }
}
