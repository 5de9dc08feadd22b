package io.pgvs3.spring.autoconfigure;

import io.pgvs3.spring.it.TestDataSource;
import io.pgvs3.spring.web.HealthDetailsPolicy;
import io.pgvs3.spring.web.security.TokenAdminController;
import io.pgvs3.spring.web.security.TokenHashes;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration;
import org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

import static org.assertj.core.api.Assertions.assertThat;

@Tag("slow")
class Pgvs3SecurityAutoConfigurationTests {

    @RegisterExtension
    static final TestDataSource database = new TestDataSource();

    private final WebApplicationContextRunner runner = Pgvs3TestRunners.web(database,
            AutoConfigurations.of(Pgvs3AutoConfiguration.class, Pgvs3WebAutoConfiguration.class,
                    Pgvs3SecurityAutoConfiguration.class, SecurityAutoConfiguration.class,
                    ServletWebSecurityAutoConfiguration.class))
            .withPropertyValues("pgvs3.http.enabled=true");

    @Test
    void onLoopbackWithoutATokenTheChainIsContributedAndOpen() {
        runner.withPropertyValues("server.address=127.0.0.1").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasBean("pgvs3SecurityFilterChain");
            assertThat(context).hasSingleBean(TokenAdminController.class);
            // the application's other paths keep Spring Boot's default: a login
            SecurityFilterChain others = context.getBean("pgvs3ApplicationDefaultSecurityFilterChain",
                    SecurityFilterChain.class);
            assertThat(others.getFilters()).anyMatch(filter -> filter.getClass().getSimpleName()
                    .equals("UsernamePasswordAuthenticationFilter"));
            assertThat(context.getBean("pgvs3SecurityFilterChain", SecurityFilterChain.class)
                    .matches(new org.springframework.mock.web.MockHttpServletRequest("GET", "/ojs/v1/queues"))).isTrue();
            assertThat(context.getBean("pgvs3SecurityFilterChain", SecurityFilterChain.class)
                    .matches(new org.springframework.mock.web.MockHttpServletRequest("GET", "/app/home"))).isFalse();
            assertThat(context.getBean(HealthDetailsPolicy.class)).isSameAs(HealthDetailsPolicy.AUTHENTICATED);
        });
    }

    @Test
    void everyInterfaceWithoutATokenFailsToStart() {
        runner.run(context -> assertThat(context).getFailure().rootCause()
                .hasMessageContaining("refuses to serve its HTTP API on every interface without authentication"));
        runner.withPropertyValues("server.address=0.0.0.0").run(context -> assertThat(context).hasFailed());
    }

    @Test
    void aManagementServerBeyondLoopbackCountsAsExposure() {
        runner.withPropertyValues("server.address=127.0.0.1", "management.server.port=9091")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("on every interface without authentication"));
        runner.withPropertyValues("server.address=127.0.0.1", "management.server.port=9091",
                "management.server.address=10.1.2.3").run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("on 10.1.2.3 without authentication"));
        runner.withPropertyValues("server.address=127.0.0.1", "management.server.port=9091",
                "management.server.address=127.0.0.1").run(context -> assertThat(context).hasNotFailed());
        // the management server on the API's own port, or switched off, listens nowhere else
        runner.withPropertyValues("server.address=127.0.0.1", "server.port=9092", "management.server.port=9092")
                .run(context -> assertThat(context).hasNotFailed());
        runner.withPropertyValues("server.address=127.0.0.1", "management.server.port=-1")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void everyInterfaceStartsWithATokenOrAnExplicitOptIn() {
        runner.withPropertyValues("pgvs3.security.tokens[0].name=ops",
                "pgvs3.security.tokens[0].hash=sha256:" + TokenHashes.sha256("secret"),
                "pgvs3.security.tokens[0].scopes=admin").run(context -> assertThat(context).hasNotFailed());
        runner.withPropertyValues("pgvs3.security.allow-anonymous=true")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void aMisconfiguredTokenFailsToStartNamingIt() {
        runner.withPropertyValues("server.address=127.0.0.1", "pgvs3.security.tokens[0].name=ops",
                "pgvs3.security.tokens[0].hash=plaintext-by-mistake", "pgvs3.security.tokens[0].scopes=admin")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("pgvs3.security.tokens[0]").hasMessageContaining("64 hex digits"));
        runner.withPropertyValues("server.address=127.0.0.1", "pgvs3.security.tokens[0].name=ops",
                "pgvs3.security.tokens[0].hash=" + TokenHashes.sha256("x"), "pgvs3.security.tokens[0].scopes=root")
                .run(context -> assertThat(context).getFailure().rootCause().hasMessageContaining("unknown scope"));
    }

    @Test
    void anApplicationChainOfTheSameNameReplacesPgvs3s() {
        runner.withPropertyValues("server.address=127.0.0.1")
                .withBean("pgvs3SecurityFilterChain", SecurityFilterChain.class,
                        () -> new org.springframework.security.web.DefaultSecurityFilterChain(request -> false))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean("pgvs3SecurityFilterChain"))
                            .isInstanceOf(org.springframework.security.web.DefaultSecurityFilterChain.class);
                    assertThat(context.getBeansOfType(SecurityFilterChain.class)).hasSize(1);
                });
    }

    @Test
    void withoutSpringSecurityTheRoutesAreServedWithoutIt() {
        runner.withClassLoader(new FilteredClassLoader(HttpSecurity.class, SecurityFilterChain.class))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(TokenAdminController.class);
                    assertThat(context).doesNotHaveBean(HealthDetailsPolicy.class);
                });
    }

    private static boolean guards(org.springframework.context.ApplicationContext context, String path) {
        return context.getBean("pgvs3SecurityFilterChain", SecurityFilterChain.class)
                .matches(new org.springframework.mock.web.MockHttpServletRequest("GET", path));
    }

    @Test
    void theChainGuardsTheDashboardAndOpenApiPathsOnlyWhenPgvs3ServesThem() {
        runner.withPropertyValues("server.address=127.0.0.1").run(context -> {
            assertThat(guards(context, "/ojs/v1/queues")).isTrue();
            assertThat(guards(context, "/v3/api-docs")).isTrue();
            // the dashboard is off by default, and Swagger UI is not on this class path: those paths are the app's
            assertThat(guards(context, "/dashboard/")).isFalse();
            assertThat(guards(context, "/dashboard")).isFalse();
            assertThat(guards(context, "/swagger-ui/index.html")).isFalse();
        });
        runner.withPropertyValues("server.address=127.0.0.1", "pgvs3.dashboard.enabled=true",
                "springdoc.api-docs.enabled=false").run(context -> {
                    assertThat(guards(context, "/dashboard/")).isTrue();
                    assertThat(guards(context, "/v3/api-docs")).isFalse();
                });
        runner.withPropertyValues("server.address=127.0.0.1")
                .withClassLoader(new FilteredClassLoader("org.springdoc"))
                .run(context -> assertThat(guards(context, "/v3/api-docs")).isFalse());
    }

    @Test
    void aCatalogTokenGrantsNoMoreThanItsCreatorHas() {
        runner.withPropertyValues("server.address=127.0.0.1").run(context -> {
            TokenAdminController controller = context.getBean(TokenAdminController.class);
            tools.jackson.databind.json.JsonMapper json = tools.jackson.databind.json.JsonMapper.builder().build();
            var creator = new io.pgvs3.spring.web.security.ApiToken("lead",
                    java.util.EnumSet.of(io.pgvs3.spring.web.security.Scope.READ,
                            io.pgvs3.spring.web.security.Scope.PRODUCE), java.util.List.of("orders-*"));
            org.springframework.security.core.context.SecurityContextHolder.getContext()
                    .setAuthentication(new io.pgvs3.spring.web.security.TokenAuthentication(creator));
            try {
                assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> controller.create(json.readTree(
                        "{\"name\":\"more\",\"scopes\":[\"consume\"],\"queues\":[\"orders-*\"]}"))))
                        .hasMessageContaining("lacks the scope 'consume'");
                assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> controller.create(json.readTree(
                        "{\"name\":\"wider\",\"scopes\":[\"read\"]}"))))
                        .hasMessageContaining("subset of them");
                assertThat(controller.create(json.readTree(
                        "{\"name\":\"narrow\",\"scopes\":[\"read\"],\"queues\":[\"orders-*\"]}"))
                        .getStatusCode().value()).isEqualTo(201);
            }
            finally {
                org.springframework.security.core.context.SecurityContextHolder.clearContext();
                // the other tests start without any token in this database
                context.getBean(io.pgvs3.spring.web.security.CatalogTokenStore.class).revoke("narrow");
            }
        });
    }
}
