package io.pgvs3.server.dashboard;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;

import io.pgvs3.server.ServerTestSupport;
import io.pgvs3.test.OjsClient;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The OpenAPI description at {@code /v3/api-docs} names every route of the pgvs3 controllers, each with a summary
 * and an example response, and the interactive page at {@code /swagger-ui/index.html} is served.
 */
class OpenApiDescriptionTest extends ServerTestSupport {

    @Autowired
    @Qualifier("requestMappingHandlerMapping")
    private RequestMappingHandlerMapping mappings;

    @Test
    void everyControllerRouteIsDescribedWithAnExample() throws Exception {
        HttpResponse<String> docs = get("/v3/api-docs");
        assertThat(docs.statusCode()).isEqualTo(200);
        JsonNode description = OjsClient.mapper().readTree(docs.body());
        JsonNode paths = description.path("paths");
        assertThat(description.path("info").path("title").asString()).isEqualTo("pgvs3 HTTP API");

        List<String> routes = new ArrayList<>();
        mappings.getHandlerMethods().forEach((info, method) -> {
            if (method.getBeanType().getPackageName().startsWith("io.pgvs3.spring.web")) {
                routes.addAll(routes(info));
            }
        });
        assertThat(routes).hasSizeGreaterThan(40).contains("post /ojs/v1/jobs", "post /ojs/v1/queues/{queue}/receive",
                "get /ojs/v1/queues/{queue}/storage", "post /ojs/v1/admin/reset");

        List<String> problems = new ArrayList<>();
        for (String route : routes) {
            if (route.endsWith(" /dashboard") || route.contains(" /dashboard/")) {
                continue;
            }
            String method = route.substring(0, route.indexOf(' '));
            String path = route.substring(route.indexOf(' ') + 1);
            JsonNode operation = paths.path(path).path(method);
            if (operation.isMissingNode()) {
                problems.add(route + ": missing");
                continue;
            }
            if (operation.path("summary").asString("").isBlank()) {
                problems.add(route + ": no summary");
            }
            JsonNode success = operation.path("responses").properties().stream()
                    .filter(entry -> entry.getKey().startsWith("2")).map(java.util.Map.Entry::getValue)
                    .findFirst().orElse(null);
            if (success == null || success.path("content").path("application/json").path("examples").isEmpty()) {
                problems.add(route + ": no example response");
            }
            if (!method.equals("get") && !method.equals("delete") && !route.endsWith("/pause")
                    && !route.endsWith("/resume") && !route.contains("/replay") && !route.endsWith("/retry")
                    && !route.endsWith("/enable") && !route.endsWith("/disable") && !route.endsWith("/admin/reset")
                    && operation.path("requestBody").path("content").path("application/json").path("examples").isEmpty()) {
                problems.add(route + ": no example request");
            }
        }
        assertThat(problems).isEmpty();
    }

    @Test
    void theInteractivePageIsServed() throws Exception {
        HttpResponse<String> page = get("/swagger-ui/index.html");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("swagger-ui");
    }

    private HttpResponse<String> get(String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Accept", "application/json, text/html").build(), HttpResponse.BodyHandlers.ofString());
    }

    private static List<String> routes(RequestMappingInfo info) {
        List<String> routes = new ArrayList<>();
        for (String pattern : info.getPatternValues()) {
            for (RequestMethod method : info.getMethodsCondition().getMethods()) {
                routes.add(method.name().toLowerCase() + " " + pattern);
            }
        }
        return routes;
    }
}
