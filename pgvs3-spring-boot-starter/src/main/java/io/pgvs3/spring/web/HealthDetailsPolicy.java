package io.pgvs3.spring.web;

import jakarta.servlet.http.HttpServletRequest;

/** Whether {@code GET /ojs/v1/health} may show a caller its details (versions, uptime, latency). */
@FunctionalInterface
public interface HealthDetailsPolicy {

    /** Without Spring Security there is no caller to tell apart: details are shown. */
    HealthDetailsPolicy ALWAYS = request -> true;

    /** Details only for an authenticated caller (Spring Security sets the user principal). */
    HealthDetailsPolicy AUTHENTICATED = request -> request.getUserPrincipal() != null;

    boolean showDetails(HttpServletRequest request);
}
