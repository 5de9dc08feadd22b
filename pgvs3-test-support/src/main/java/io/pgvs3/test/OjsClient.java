package io.pgvs3.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A small HTTP client for the OJS routes of a running server, for tests: JSON in, status, headers and JSON out.
 */
public final class OjsClient {

    public static final String OJS_JSON = "application/openjobspec+json";

    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String baseUrl;
    private final java.util.Map<String, String> headers;

    public OjsClient(String baseUrl) {
        this(baseUrl, java.util.Map.of());
    }

    private OjsClient(String baseUrl, java.util.Map<String, String> headers) {
        this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        this.headers = headers;
    }

    /** A client that sends {@code name: value} on every request, besides this client's own headers. */
    public OjsClient withHeader(String name, String value) {
        java.util.Map<String, String> more = new java.util.LinkedHashMap<>(headers);
        more.put(name, value);
        return new OjsClient(baseUrl, more);
    }

    /** A client that authenticates with {@code Authorization: Bearer <token>}. */
    public OjsClient withBearer(String token) {
        return withHeader("Authorization", "Bearer " + token);
    }

    /** Sends {@code method} with {@code body} (null: none) and {@code contentType} (null: none). */
    public Response send(String method, String path, String body, String contentType) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri(path)).method(method,
                body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (contentType != null) {
            builder.header("Content-Type", contentType);
        }
        return send(builder);
    }

    public static OjsClient forPort(int port) {
        return new OjsClient("http://127.0.0.1:" + port);
    }

    public static JsonMapper mapper() {
        return MAPPER;
    }

    public Response get(String path) {
        return send(HttpRequest.newBuilder(uri(path)).GET());
    }

    public Response delete(String path) {
        return send(HttpRequest.newBuilder(uri(path)).DELETE());
    }

    /** POSTs {@code body} as JSON: a String is sent as it is, anything else is serialised. */
    public Response post(String path, Object body) {
        return postRaw(path, body instanceof String raw ? raw : MAPPER.writeValueAsString(body), OJS_JSON);
    }

    public Response postRaw(String path, String body, String contentType) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri(path))
                .POST(body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (contentType != null) {
            builder.header("Content-Type", contentType);
        }
        return send(builder);
    }

    private URI uri(String path) {
        return URI.create(baseUrl + path);
    }

    private Response send(HttpRequest.Builder builder) {
        try {
            headers.forEach(builder::header);
            if (!headers.containsKey("Accept")) {
                builder.header("Accept", OJS_JSON);
            }
            HttpResponse<String> response = http.send(builder.timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString());
            return new Response(response.statusCode(), response.headers(), response.body());
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    /** A response: status, headers, and the body as text and as JSON. */
    public record Response(int status, java.net.http.HttpHeaders headers, String text) {

        public JsonNode json() {
            return text == null || text.isEmpty() ? MAPPER.missingNode() : MAPPER.readTree(text);
        }

        public String header(String name) {
            return headers.firstValue(name).orElse(null);
        }

        /** The OJS error code of an error response, or null. */
        public String errorCode() {
            JsonNode code = json().path("error").path("code");
            return code.isString() ? code.stringValue() : null;
        }

        @Override
        public String toString() {
            return status + " " + text;
        }
    }
}
