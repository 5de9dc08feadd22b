package io.pgvs3.spring.web;

import org.springframework.core.MethodParameter;
import org.springframework.http.MediaType;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.server.ServerHttpRequest;
import org.springframework.http.server.ServerHttpResponse;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.servlet.mvc.method.annotation.ResponseBodyAdvice;

/**
 * Gives every JSON body written by a pgvs3 controller the {@code application/openjobspec+json} content type,
 * whatever JSON type the client asked for.
 */
@ControllerAdvice(basePackages = "io.pgvs3.spring.web")
public class OjsResponseAdvice implements ResponseBodyAdvice<Object> {

    @Override
    public boolean supports(MethodParameter returnType, Class<? extends HttpMessageConverter<?>> converterType) {
        return true;
    }

    @Override
    public Object beforeBodyWrite(Object body, MethodParameter returnType, MediaType selectedContentType,
            Class<? extends HttpMessageConverter<?>> selectedConverterType, ServerHttpRequest request,
            ServerHttpResponse response) {
        if (selectedContentType.isCompatibleWith(MediaType.APPLICATION_JSON)
                || selectedContentType.getSubtype().endsWith("+json")) {
            response.getHeaders().setContentType(OjsMediaTypes.OJS_JSON);
        }
        return body;
    }
}
