package io.pgvs3.spring.autoconfigure;

import java.time.Duration;

/**
 * Configuration under {@code pgvs3.http.*}.
 */
public class Pgvs3HttpProperties {

    /** Whether to serve the OJS and stream HTTP routes under /ojs. */
    private boolean enabled = false;

    /** Whether to answer every mutation with 403 forbidden, allowing only reads. */
    private boolean readOnly = false;

    /** Whether POST /ojs/v1/admin/reset empties everything. For conformance runs only; never in production. */
    private boolean adminResetEnabled = false;

    /** Largest request body accepted, in bytes; larger bodies are refused with 413. */
    private long maxRequestBytes = 8 * 1024 * 1024;

    /**
     * Longest a client may take to send a request body. The body is read without holding a request thread;
     * one not complete by then is refused with 408.
     */
    private Duration bodyReadTimeout = Duration.ofSeconds(30);

    /**
     * Whether worker fetch and ack are answered without Spring MVC's argument resolution and message converters when
     * nothing the application configured changes their answers (see docs/jobs.md, "Jobs over HTTP").
     */
    private boolean directWorkerRoutes = true;

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public boolean isReadOnly() {
        return readOnly;
    }

    public void setReadOnly(boolean readOnly) {
        this.readOnly = readOnly;
    }

    public boolean isAdminResetEnabled() {
        return adminResetEnabled;
    }

    public void setAdminResetEnabled(boolean adminResetEnabled) {
        this.adminResetEnabled = adminResetEnabled;
    }

    public long getMaxRequestBytes() {
        return maxRequestBytes;
    }

    public void setMaxRequestBytes(long maxRequestBytes) {
        this.maxRequestBytes = maxRequestBytes;
    }

    public Duration getBodyReadTimeout() {
        return bodyReadTimeout;
    }

    public void setBodyReadTimeout(Duration bodyReadTimeout) {
        this.bodyReadTimeout = bodyReadTimeout;
    }

    public boolean isDirectWorkerRoutes() {
        return directWorkerRoutes;
    }

    public void setDirectWorkerRoutes(boolean directWorkerRoutes) {
        this.directWorkerRoutes = directWorkerRoutes;
    }
}
