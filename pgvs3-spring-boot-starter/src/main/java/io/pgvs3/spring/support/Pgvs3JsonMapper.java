package io.pgvs3.spring.support;

import tools.jackson.databind.json.JsonMapper;

/**
 * The JSON mapper pgvs3 converts payloads with: the application's own {@link JsonMapper} when it has one.
 */
public record Pgvs3JsonMapper(JsonMapper mapper) {
}
