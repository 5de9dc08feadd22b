package io.pgvs3.spring.listener;

import java.lang.reflect.Type;

import io.pgvs3.core.stream.ReceivedMessage;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads payloads with Jackson. {@code String} receives the raw JSON text and {@code JsonNode} the parsed tree;
 * every other type is bound by the mapper.
 */
public class JsonStreamMessageConverter implements StreamMessageConverter {

    private final JsonMapper mapper;

    public JsonStreamMessageConverter(JsonMapper mapper) {
        this.mapper = mapper;
    }

    @Override
    public Object convert(ReceivedMessage message, Type targetType) {
        String json = message.payloadJson();
        if (targetType == String.class) {
            return json;
        }
        try {
            if (targetType == JsonNode.class) {
                return mapper.readTree(json);
            }
            return mapper.readValue(json, mapper.constructType(targetType));
        }
        catch (JacksonException ex) {
            throw new MessageConversionException("Cannot convert payload of message " + message.id() + " (type "
                    + message.type() + ") to " + targetType.getTypeName() + ": " + ex.getOriginalMessage(), ex);
        }
    }
}
