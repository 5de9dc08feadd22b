package io.pgvs3.spring.autoconfigure;

import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.spring.web.dashboard.DashboardController;
import io.pgvs3.spring.web.dashboard.DashboardController.DashboardSettings;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.config.annotation.ResourceHandlerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * The operator dashboard at {@code /dashboard/}: static pages that read and act through the routes under
 * {@code /ojs}, so it needs {@code pgvs3.http.enabled} as well as {@code pgvs3.dashboard.enabled}.
 */
@AutoConfiguration(after = Pgvs3WebAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(DispatcherServlet.class)
@ConditionalOnBean(QueueCatalog.class)
@ConditionalOnBooleanProperty(name = { "pgvs3.http.enabled", "pgvs3.dashboard.enabled" })
public class Pgvs3DashboardAutoConfiguration {

    private static final String DASHBOARD_FILES = "classpath:/io/pgvs3/dashboard/";

    @Bean
    @ConditionalOnMissingBean
    public DashboardController pgvs3DashboardController(Pgvs3Properties properties, Environment environment) {
        ClassLoader classLoader = getClass().getClassLoader();
        boolean docs = ClassUtils.isPresent("org.springdoc.core.configuration.SpringDocConfiguration", classLoader)
                && environment.getProperty("springdoc.api-docs.enabled", Boolean.class, true);
        boolean ui = docs && ClassUtils.isPresent("org.springdoc.webmvc.ui.SwaggerConfig", classLoader)
                && environment.getProperty("springdoc.swagger-ui.enabled", Boolean.class, true);
        return new DashboardController(new DashboardSettings(properties.getHttp().isReadOnly(),
                docs ? environment.getProperty("springdoc.api-docs.path", "/v3/api-docs") : null,
                ui ? "/swagger-ui/index.html" : null));
    }

    @Bean
    public WebMvcConfigurer pgvs3DashboardResources() {
        return new WebMvcConfigurer() {
            @Override
            public void addResourceHandlers(ResourceHandlerRegistry registry) {
                registry.addResourceHandler("/dashboard/**").addResourceLocations(DASHBOARD_FILES);
            }
        };
    }
}
