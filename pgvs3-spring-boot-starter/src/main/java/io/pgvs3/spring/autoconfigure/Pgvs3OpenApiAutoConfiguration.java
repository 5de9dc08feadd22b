package io.pgvs3.spring.autoconfigure;

import io.pgvs3.spring.web.openapi.OjsOpenApiCustomizer;
import org.springdoc.core.customizers.OpenApiCustomizer;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;

/**
 * Summaries and examples of the pgvs3 routes in the OpenAPI description, when springdoc is on the class path and
 * the HTTP routes are enabled.
 */
@AutoConfiguration(after = Pgvs3WebAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(OpenApiCustomizer.class)
@ConditionalOnBooleanProperty("pgvs3.http.enabled")
public class Pgvs3OpenApiAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public OjsOpenApiCustomizer pgvs3OpenApiCustomizer() {
        String version = OjsOpenApiCustomizer.class.getPackage().getImplementationVersion();
        return new OjsOpenApiCustomizer(version != null ? version : "dev");
    }
}
