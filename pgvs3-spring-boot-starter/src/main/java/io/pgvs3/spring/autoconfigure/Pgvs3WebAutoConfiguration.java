package io.pgvs3.spring.autoconfigure;


import java.util.HashMap;
import java.util.Map;

import javax.sql.DataSource;

import io.pgvs3.core.Resettable;
import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.catalog.QueueTableStats;
import io.pgvs3.core.cluster.ClusterRouter;
import io.pgvs3.spring.metrics.QueueStatsSampler;
import io.pgvs3.spring.support.Pgvs3JsonMapper;
import io.pgvs3.spring.web.AdminResetController;
import io.pgvs3.spring.web.HealthDetailsPolicy;
import io.pgvs3.spring.web.JsonBodyGuard;
import io.pgvs3.spring.web.MutationGuardFilter;
import io.pgvs3.spring.web.OjsBodyReadFilter;
import io.pgvs3.spring.web.OjsExceptionHandler;
import io.pgvs3.spring.web.OjsMediaTypes;
import io.pgvs3.spring.web.OjsRequestFilter;
import io.pgvs3.spring.web.OjsResponseAdvice;
import io.pgvs3.spring.web.QueueController;
import io.pgvs3.spring.web.QueueStorageController;
import io.pgvs3.spring.web.ReadOnlyInterceptor;
import io.pgvs3.spring.web.SystemController;
import io.pgvs3.spring.web.dashboard.QueueHistoryController;
import io.pgvs3.spring.web.dashboard.QueueStatsHistory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.cors.CorsConfiguration;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.config.annotation.CorsRegistry;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * The OJS HTTP binding (jobs and streams routes under {@code /ojs}), off unless {@code pgvs3.http.enabled=true}.
 */
@AutoConfiguration(after = { Pgvs3AutoConfiguration.class, Pgvs3MetricsAutoConfiguration.class })
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(DispatcherServlet.class)
@ConditionalOnBean(QueueCatalog.class)
@ConditionalOnBooleanProperty("pgvs3.http.enabled")
@EnableConfigurationProperties(Pgvs3CorsProperties.class)
@Import({ Pgvs3JobsWebConfiguration.class, Pgvs3StreamsWebConfiguration.class })
public class Pgvs3WebAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public OjsRequestFilter pgvs3OjsRequestFilter(Pgvs3Properties properties, Pgvs3JsonMapper json) {
        return new OjsRequestFilter(properties.getHttp().getMaxRequestBytes(), json.mapper());
    }

    @Bean
    @ConditionalOnMissingBean
    public OjsBodyReadFilter pgvs3OjsBodyReadFilter(Pgvs3Properties properties, Pgvs3JsonMapper json) {
        return new OjsBodyReadFilter(properties.getHttp().getMaxRequestBytes(), properties.getHttp().getBodyReadTimeout(),
                json.mapper());
    }

    @Bean
    @ConditionalOnMissingBean
    public JsonBodyGuard pgvs3JsonBodyGuard() {
        return new JsonBodyGuard();
    }

    @Bean
    @ConditionalOnMissingBean
    public OjsExceptionHandler pgvs3OjsExceptionHandler() {
        return new OjsExceptionHandler();
    }

    @Bean
    @ConditionalOnMissingBean
    public OjsResponseAdvice pgvs3OjsResponseAdvice() {
        return new OjsResponseAdvice();
    }

    @Bean
    @ConditionalOnMissingBean
    public SystemController pgvs3SystemController(DataSource dataSource, ObjectProvider<HealthDetailsPolicy> details) {
        return new SystemController(dataSource, details.getIfAvailable(() -> HealthDetailsPolicy.ALWAYS));
    }

    @Bean
    @ConditionalOnMissingBean
    public MutationGuardFilter pgvs3MutationGuardFilter(Pgvs3CorsProperties cors, Pgvs3JsonMapper json) {
        return new MutationGuardFilter(cors.toConfiguration(), json.mapper());
    }

    @Bean
    public WebMvcConfigurer pgvs3CorsConfigurer(Pgvs3CorsProperties properties) {
        CorsConfiguration cors = properties.toConfiguration();
        return new WebMvcConfigurer() {
            @Override
            public void addCorsMappings(CorsRegistry registry) {
                if (cors != null) {
                    registry.addMapping(OjsMediaTypes.ROOT + "/**")
                            .allowedOrigins(cors.getAllowedOrigins().toArray(String[]::new))
                            .allowedMethods(cors.getAllowedMethods().toArray(String[]::new))
                            .allowedHeaders(cors.getAllowedHeaders().toArray(String[]::new))
                            .exposedHeaders(cors.getExposedHeaders().toArray(String[]::new))
                            .maxAge(cors.getMaxAge());
                }
            }
        };
    }

    @Bean
    @ConditionalOnMissingBean
    public QueueController pgvs3QueueController(ClusterRouter router) {
        return new QueueController(router);
    }

    @Bean
    @ConditionalOnMissingBean
    public QueueStorageController pgvs3QueueStorageController(ClusterRouter router) {
        Map<String, QueueTableStats> byCluster = new HashMap<>();
        router.clusters().forEach(cluster -> byCluster.put(cluster.name(),
                new QueueTableStats(new JdbcTemplate(cluster.dataSource()), cluster.catalog())));
        return new QueueStorageController(queue -> byCluster.get(router.forQueue(queue).name()));
    }

    @Bean
    @ConditionalOnMissingBean
    public QueueHistoryController pgvs3QueueHistoryController(ObjectProvider<QueueStatsSampler> sampler,
            Pgvs3Properties properties) {
        QueueStatsSampler source = sampler.getIfAvailable();
        QueueStatsHistory history = null;
        if (source != null) {
            history = new QueueStatsHistory(properties.getDashboard().getHistorySize());
            source.onSample(history::record);
        }
        return new QueueHistoryController(history, properties.getMetrics().getSampleInterval());
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty("pgvs3.http.admin-reset-enabled")
    public AdminResetController pgvs3AdminResetController(QueueCatalog catalog, ObjectProvider<Resettable> resettables) {
        return new AdminResetController(catalog, resettables.orderedStream().toList());
    }

    @Bean
    @ConditionalOnBooleanProperty("pgvs3.http.read-only")
    public WebMvcConfigurer pgvs3ReadOnlyConfigurer() {
        return new WebMvcConfigurer() {
            @Override
            public void addInterceptors(InterceptorRegistry registry) {
                registry.addInterceptor(new ReadOnlyInterceptor()).addPathPatterns("/ojs/**");
            }
        };
    }

}
