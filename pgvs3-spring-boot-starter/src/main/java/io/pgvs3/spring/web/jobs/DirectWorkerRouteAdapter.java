package io.pgvs3.spring.web.jobs;

import java.io.IOException;
import java.lang.reflect.Type;
import java.util.Map;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import io.pgvs3.spring.web.JsonBodyGuard;
import io.pgvs3.spring.web.OjsMediaTypes;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.exc.InvalidDefinitionException;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.Ordered;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.converter.HttpMessageConversionException;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.http.converter.HttpMessageNotWritableException;
import org.springframework.http.server.ServletServerHttpRequest;
import org.springframework.web.servlet.HandlerAdapter;
import org.springframework.web.servlet.ModelAndView;

/**
 * Serves a {@link DirectWorkerRoute} without Spring MVC's argument resolution, content negotiation and message
 * converters, which cost more CPU per fetch or ack than the rest of the request: it reads the body with the mapper
 * and reader settings MVC's JSON converter would use, applies {@link JsonBodyGuard}, calls the controller method and
 * writes its answer with that mapper as {@code application/openjobspec+json}. A failure
 * is thrown as the exception MVC would have thrown, for the usual exception handlers to answer.
 */
public final class DirectWorkerRouteAdapter implements HandlerAdapter, Ordered {

    /** Before {@code RequestMappingHandlerAdapter} (lowest precedence), which would also take these handler methods. */
    public static final int ORDER = 0;

    private static final Type ANSWER_TYPE = new ParameterizedTypeReference<Map<String, Object>>() { }.getType();

    private final ObjectReader reader;
    private final ObjectWriter writer;

    /** @param mapper the mapper of MVC's JSON converter ({@link DirectWorkerRoutes#mapper}), null to serve nothing */
    public DirectWorkerRouteAdapter(JsonMapper mapper) {
        this.reader = mapper == null ? null : mapper.readerFor(JsonNode.class);
        this.writer = mapper == null ? null : mapper.writerFor(mapper.constructType(ANSWER_TYPE));
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

    @Override
    public boolean supports(Object handler) {
        return reader != null && handler instanceof DirectWorkerRoute;
    }

    @Override
    public ModelAndView handle(HttpServletRequest request, HttpServletResponse response, Object handler)
            throws IOException {
        Map<String, Object> answer = ((DirectWorkerRoute) handler).call(body(request));
        byte[] bytes;
        try {
            bytes = writer.writeValueAsBytes(answer);
        }
        catch (InvalidDefinitionException ex) {
            throw new HttpMessageConversionException("Type definition error: " + ex.getType(), ex);
        }
        catch (JacksonException ex) {
            throw new HttpMessageNotWritableException("Could not write JSON: " + ex.getOriginalMessage(), ex);
        }
        response.setContentType(OjsMediaTypes.OJS_JSON_VALUE);
        // not flushed, as by the converter: a body that fits the container's buffer goes out with its length
        response.getOutputStream().write(bytes);
        return null;
    }

    /** The body as MVC reads a {@code @RequestBody(required = false) JsonNode}: null when empty. */
    private JsonNode body(HttpServletRequest request) {
        byte[] bytes;
        try {
            bytes = request.getInputStream().readAllBytes();
        }
        catch (IOException ex) {
            throw new HttpMessageNotReadableException("I/O error while reading input message", ex,
                    new ServletServerHttpRequest(request));
        }
        if (bytes.length == 0) {
            return null;
        }
        JsonNode body;
        try {
            body = reader.readValue(bytes);
        }
        catch (JacksonException ex) {
            throw new HttpMessageNotReadableException("JSON parse error: " + ex.getOriginalMessage(), ex,
                    new ServletServerHttpRequest(request));
        }
        JsonBodyGuard.checkBody(body);
        return body;
    }
}
