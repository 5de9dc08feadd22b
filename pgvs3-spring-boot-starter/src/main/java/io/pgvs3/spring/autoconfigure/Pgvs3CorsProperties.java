package io.pgvs3.spring.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.web.cors.CorsConfiguration;

/**
 * Cross-origin access to the routes under {@code /ojs}, under {@code pgvs3.http.cors.*}. None unless
 * {@code allowed-origins} names at least one origin.
 */
@ConfigurationProperties("pgvs3.http.cors")
public class Pgvs3CorsProperties {

    /** Origins allowed to call the API from a browser, e.g. https://ops.example.com. Empty: none. */
    private List<String> allowedOrigins = new ArrayList<>();

    /** Methods allowed cross-origin. */
    private List<String> allowedMethods = new ArrayList<>(List.of("GET", "POST", "DELETE"));

    /** Request headers allowed cross-origin. */
    private List<String> allowedHeaders = new ArrayList<>(
            List.of("Authorization", "Content-Type", "Accept", "OJS-Version", "X-Request-Id"));

    /** How long a browser may cache a preflight answer. */
    private Duration maxAge = Duration.ofMinutes(30);

    public List<String> getAllowedOrigins() {
        return allowedOrigins;
    }

    public void setAllowedOrigins(List<String> allowedOrigins) {
        this.allowedOrigins = allowedOrigins;
    }

    public List<String> getAllowedMethods() {
        return allowedMethods;
    }

    public void setAllowedMethods(List<String> allowedMethods) {
        this.allowedMethods = allowedMethods;
    }

    public List<String> getAllowedHeaders() {
        return allowedHeaders;
    }

    public void setAllowedHeaders(List<String> allowedHeaders) {
        this.allowedHeaders = allowedHeaders;
    }

    public Duration getMaxAge() {
        return maxAge;
    }

    public void setMaxAge(Duration maxAge) {
        this.maxAge = maxAge;
    }

    /** The configuration, or null when no origin is allowed. */
    public CorsConfiguration toConfiguration() {
        if (allowedOrigins.isEmpty()) {
            return null;
        }
        CorsConfiguration configuration = new CorsConfiguration();
        configuration.setAllowedOrigins(allowedOrigins);
        configuration.setAllowedMethods(allowedMethods);
        configuration.setAllowedHeaders(allowedHeaders);
        configuration.setExposedHeaders(List.of("OJS-Version", "X-Request-Id", "Location"));
        configuration.setMaxAge(maxAge);
        return configuration;
    }
}
