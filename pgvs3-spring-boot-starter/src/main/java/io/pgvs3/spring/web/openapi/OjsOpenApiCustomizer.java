package io.pgvs3.spring.web.openapi;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.examples.Example;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.info.License;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.ObjectSchema;
import io.swagger.v3.oas.models.parameters.RequestBody;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import io.swagger.v3.oas.models.tags.Tag;
import org.springdoc.core.customizers.OpenApiCustomizer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.io.ClassPathResource;

/**
 * Completes the description springdoc derives from the controllers (whose bodies are free-form JSON) with a title,
 * and, for each operation, a summary, the status of its success, an example request and an example response and
 * the OJS error body, read from {@code io/pgvs3/openapi/operations.json} (keyed {@code "METHOD /path"}).
 */
public class OjsOpenApiCustomizer implements OpenApiCustomizer {

    static final String OPERATIONS = "io/pgvs3/openapi/operations.json";

    private static final String JSON = "application/json";

    private static final List<String> TAGS = List.of("System", "Jobs", "Workers", "Dead letters", "Cron", "Workflows",
            "Events", "Queues", "Streams", "Stream dead letters", "Admin");

    private final JsonNode operations;
    private final String version;

    public OjsOpenApiCustomizer(String version) {
        this.version = version;
        try (InputStream in = new ClassPathResource(OPERATIONS).getInputStream()) {
            this.operations = JsonMapper.builder().build().readTree(in);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("cannot read " + OPERATIONS, ex);
        }
    }

    @Override
    public void customise(OpenAPI openApi) {
        openApi.info(new Info().title("pgvs3 HTTP API").version(version)
                .description("The OJS HTTP binding of pgvs3 (jobs, workers, dead letters, cron, workflows, events) "
                        + "and its streams extension (append, consumers, receive, ack/nack, stream dead letters), "
                        + "plus queue administration. Errors answer with the OJS error body "
                        + "{\"error\":{\"code\",\"type\",\"message\",\"retryable\",\"details\",\"request_id\"}}.")
                .license(new License().name("Apache-2.0")));
        // the order the interactive page lists the routes in
        TAGS.forEach(tag -> openApi.addTagsItem(new Tag().name(tag)));
        if (openApi.getPaths() == null) {
            return;
        }
        openApi.getPaths().forEach((path, item) -> item.readOperationsMap()
                .forEach((method, operation) -> describe(method, path, operation)));
    }

    private void describe(PathItem.HttpMethod method, String path, Operation operation) {
        JsonNode described = operations.get(method.name() + " " + path);
        if (described == null) {
            return;
        }
        operation.setSummary(described.path("summary").asString(null));
        if (described.hasNonNull("description")) {
            operation.setDescription(described.get("description").asString());
        }
        if (described.hasNonNull("tag")) {
            operation.setTags(List.of(described.get("tag").asString()));
        }
        if (described.hasNonNull("request")) {
            RequestBody body = operation.getRequestBody() != null ? operation.getRequestBody() : new RequestBody();
            body.setContent(content(described.get("request")));
            operation.setRequestBody(body);
        }
        ApiResponses responses = new ApiResponses();
        String status = described.path("status").asString("200");
        responses.addApiResponse(status, new ApiResponse().description(described.path("response_description")
                .asString("OK")).content(content(described.get("response"))));
        for (Map.Entry<String, JsonNode> error : described.path("errors").properties()) {
            responses.addApiResponse(error.getKey(), new ApiResponse().description(error.getValue().path("error")
                    .path("message").asString("error")).content(content(error.getValue())));
        }
        operation.setResponses(responses);
    }

    private static Content content(JsonNode example) {
        MediaType mediaType = new MediaType().schema(new ObjectSchema());
        if (example != null && !example.isNull()) {
            mediaType.addExamples("example", new Example().value(example));
        }
        return new Content().addMediaType(JSON, mediaType);
    }
}
