package io.pgvs3.spring.web;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /ojs/manifest} and {@code GET /ojs/v1/health}; the health's details (versions, uptime, latency) only
 * for the callers the {@link HealthDetailsPolicy} allows.
 */
@RestController
public class SystemController implements DisposableBean {

    static final Duration HEALTH_TIMEOUT = Duration.ofSeconds(2);

    private static final String SERVER_VERSION_SQL = "SHOW server_version";

    private final JdbcTemplate jdbc;
    private final Instant startedAt = Instant.now();
    private final String version;

    // its own thread: a query stuck on a hung database must not hold a worker of the JVM's shared pool
    private final ExecutorService checks = Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(runnable, "pgvs3-ojs-health");
        thread.setDaemon(true);
        return thread;
    });

    private CompletableFuture<String> pendingCheck;

    private final HealthDetailsPolicy details;

    public SystemController(DataSource dataSource) {
        this(dataSource, HealthDetailsPolicy.ALWAYS);
    }

    public SystemController(DataSource dataSource, HealthDetailsPolicy details) {
        this.details = details;
        this.jdbc = new JdbcTemplate(dataSource);
        this.jdbc.setQueryTimeout((int) HEALTH_TIMEOUT.toSeconds());
        String implementationVersion = SystemController.class.getPackage().getImplementationVersion();
        this.version = implementationVersion != null ? implementationVersion : "dev";
    }

    @GetMapping("/ojs/manifest")
    public Map<String, Object> manifest() {
        Map<String, Object> manifest = new LinkedHashMap<>();
        manifest.put("specversion", OjsMediaTypes.VERSION);
        manifest.put("implementation", Map.of("name", "pgvs3", "version", version, "language", "java",
                "homepage", "https://github.com/pgvs3/pgvs3"));
        manifest.put("protocols", List.of("http"));
        manifest.put("backend", "postgres");
        manifest.put("conformance_level", 4);
        manifest.put("extensions", List.of("streams"));
        // ojs-unique-jobs.md section 8.3: the strength of the uniqueness guarantee
        manifest.put("capabilities", Map.of("unique_jobs", Map.of("strength", "strong",
                "mechanism", "PostgreSQL transaction-scoped advisory lock on the uniqueness key, held to commit")));
        return manifest;
    }

    @GetMapping("/ojs/v1/health")
    public ResponseEntity<Map<String, Object>> health(HttpServletRequest request) {
        long start = System.nanoTime();
        Map<String, Object> backend = new LinkedHashMap<>();
        backend.put("type", "postgres");
        boolean up;
        try {
            String serverVersion = serverVersion().get(HEALTH_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            backend.put("status", "ok");
            backend.put("version", serverVersion);
            up = true;
        }
        catch (Exception ex) {
            if (ex instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            backend.put("status", "error");
            backend.put("error", "PostgreSQL did not answer within " + HEALTH_TIMEOUT.toMillis() + " ms");
            up = false;
        }
        backend.put("latency_ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", up ? "ok" : "degraded");
        if (!details.showDetails(request)) {
            return ResponseEntity.status(up ? 200 : 503).body(body);
        }
        body.put("version", version);
        body.put("uptime_seconds", Duration.between(startedAt, Instant.now()).toSeconds());
        body.put("backend", backend);
        return ResponseEntity.status(up ? 200 : 503).body(body);
    }

    /** A check still waiting on a hung database is shared by later requests instead of queueing behind it. */
    private synchronized CompletableFuture<String> serverVersion() {
        if (pendingCheck == null || pendingCheck.isDone()) {
            pendingCheck = CompletableFuture.supplyAsync(
                    () -> jdbc.queryForObject(SERVER_VERSION_SQL, String.class), checks);
        }
        return pendingCheck;
    }

    @Override
    public void destroy() {
        checks.shutdownNow();
    }
}
