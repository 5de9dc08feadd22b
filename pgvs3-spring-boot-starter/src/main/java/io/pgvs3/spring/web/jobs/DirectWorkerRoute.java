package io.pgvs3.spring.web.jobs;

import java.util.Map;
import java.util.function.Function;

import tools.jackson.databind.JsonNode;

import org.springframework.web.method.HandlerMethod;

/**
 * A worker route that {@link DirectWorkerRouteAdapter} serves: still the {@link WorkerController} method it is mapped
 * to (so that interceptors and exception handlers see that method, as for any other route), plus a direct call of it.
 */
final class DirectWorkerRoute extends HandlerMethod {

    private final String path;
    private final Function<JsonNode, Map<String, Object>> call;

    DirectWorkerRoute(HandlerMethod mapped, String path, Function<JsonNode, Map<String, Object>> call) {
        super(mapped);
        this.path = path;
        this.call = call;
    }

    String path() {
        return path;
    }

    Map<String, Object> call(JsonNode body) {
        return call.apply(body);
    }
}
