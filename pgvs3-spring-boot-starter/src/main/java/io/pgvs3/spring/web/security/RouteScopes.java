package io.pgvs3.spring.web.security;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The scope each route needs, and the queue it names in its path. Everything under {@code /ojs/v1/admin/} needs
 * {@code admin}; every other read (GET, HEAD) needs {@code read}; mutations are listed in docs/security.md.
 */
public final class RouteScopes {

    private static final String QUEUES = "/ojs/v1/queues/";

    private RouteScopes() {
    }

    /** What a request needs: a scope, and the queue its path names (or null). */
    public record Requirement(Scope scope, String queue) {
    }

    public static Requirement of(String method, String path) {
        String queue = queue(path);
        if (path.startsWith("/ojs/v1/admin/")) {
            return new Requirement(Scope.ADMIN, queue);
        }
        if (method.equals("GET") || method.equals("HEAD") || method.equals("OPTIONS")) {
            return new Requirement(Scope.READ, queue);
        }
        if (!path.startsWith("/ojs/")) {
            return new Requirement(Scope.ADMIN, queue);
        }
        return new Requirement(mutationScope(method, path), queue);
    }

    private static Scope mutationScope(String method, String path) {
        if (method.equals("POST")) {
            switch (path) {
                case "/ojs/v1/jobs", "/ojs/v1/jobs/batch", "/ojs/v1/workflows" -> {
                    return Scope.PRODUCE;
                }
                case "/ojs/v1/workers/fetch", "/ojs/v1/workers/ack", "/ojs/v1/workers/nack",
                        "/ojs/v1/workers/heartbeat", "/ojs/v1/streams/ack", "/ojs/v1/streams/nack" -> {
                    return Scope.CONSUME;
                }
                default -> {
                }
            }
            if (queue(path) != null) {
                String rest = path.substring(QUEUES.length() + rawQueue(path).length());
                if (rest.equals("/messages") || rest.equals("/messages/batch")) {
                    return Scope.PRODUCE;
                }
                if (rest.equals("/consumers") || rest.equals("/receive")) {
                    return Scope.CONSUME;
                }
            }
            return Scope.ADMIN;
        }
        if (method.equals("DELETE")) {
            if (segments(path, "/ojs/v1/jobs/") == 1 || segments(path, "/ojs/v1/workflows/") == 1) {
                return Scope.PRODUCE;
            }
            if (queue(path) != null && path.substring(QUEUES.length() + rawQueue(path).length()).startsWith("/consumers/")) {
                return Scope.CONSUME;
            }
        }
        return Scope.ADMIN;
    }

    private static int segments(String path, String prefix) {
        if (!path.startsWith(prefix) || path.length() == prefix.length()) {
            return 0;
        }
        return List.of(path.substring(prefix.length()).split("/", -1)).size();
    }

    private static String rawQueue(String path) {
        String rest = path.substring(QUEUES.length());
        int slash = rest.indexOf('/');
        return slash < 0 ? rest : rest.substring(0, slash);
    }

    /** The queue named by {@code /ojs/v1/queues/{queue}...}, decoded, or null. */
    static String queue(String path) {
        if (!path.startsWith(QUEUES) || path.length() == QUEUES.length()) {
            return null;
        }
        String raw = rawQueue(path);
        if (raw.isEmpty()) {
            return null;
        }
        try {
            return URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
        }
        catch (IllegalArgumentException ex) {
            return raw;
        }
    }
}
