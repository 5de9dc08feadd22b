package io.pgvs3.server;

import com.zaxxer.hikari.HikariDataSource;
import io.pgvs3.embedded.EmbeddedPostgres;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.StringUtils;

/**
 * Starts an embedded PostgreSQL 17 on {@code pgvs3.embedded.data-dir} when no {@code spring.datasource.url} is
 * configured, and stops it after the connection pool has closed. The pool logs in with the superuser password the
 * embedded PostgreSQL generated and keeps in its data directory.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(EmbeddedDatabaseConfiguration.NoDataSourceUrl.class)
@EnableConfigurationProperties(EmbeddedDatabaseProperties.class)
public class EmbeddedDatabaseConfiguration {

    @Bean(destroyMethod = "close")
    public EmbeddedPostgres pgvs3EmbeddedPostgres(EmbeddedDatabaseProperties properties) {
        return EmbeddedPostgres.builder()
                .dataDirectory(properties.getDataDir())
                .port(properties.getPort())
                .osUser(properties.getOsUser())
                .start();
    }

    @Bean
    @ConfigurationProperties("spring.datasource.hikari")
    public HikariDataSource dataSource(EmbeddedPostgres postgres) {
        HikariDataSource dataSource = new HikariDataSource();
        dataSource.setJdbcUrl(postgres.jdbcUrl("postgres"));
        dataSource.setUsername(postgres.username());
        dataSource.setPassword(postgres.password());
        dataSource.setPoolName("pgvs3-embedded");
        return dataSource;
    }

    static class NoDataSourceUrl implements Condition {

        @Override
        public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return !StringUtils.hasText(context.getEnvironment().getProperty("spring.datasource.url"));
        }
    }
}
