package io.pgvs3.spring.autoconfigure;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.spring.support.Pgvs3JsonMapper;
import io.pgvs3.spring.web.HealthDetailsPolicy;
import io.pgvs3.spring.web.security.AnonymousAccessPolicy;
import io.pgvs3.spring.web.security.ApiToken;
import io.pgvs3.spring.web.security.CatalogTokenStore;
import io.pgvs3.spring.web.security.OjsSecurityErrorHandler;
import io.pgvs3.spring.web.security.QueueBodyAccessFilter;
import io.pgvs3.spring.web.security.Scope;
import io.pgvs3.spring.web.security.ScopeAuthorizationManager;
import io.pgvs3.spring.web.security.TokenAdminController;
import io.pgvs3.spring.web.security.TokenAuthenticationFilter;
import io.pgvs3.spring.web.security.TokenHashes;
import io.pgvs3.spring.web.security.TokenRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.access.intercept.AuthorizationFilter;
import org.springframework.security.web.authentication.AnonymousAuthenticationFilter;
import org.springframework.security.web.servlet.util.matcher.PathPatternRequestMatcher;
import org.springframework.security.web.util.matcher.OrRequestMatcher;
import org.springframework.security.web.util.matcher.RequestMatcher;
import org.springframework.util.ClassUtils;
import org.springframework.web.cors.CorsConfiguration;
import org.springframework.web.cors.UrlBasedCorsConfigurationSource;

/**
 * Token authentication and scope authorisation of the pgvs3 routes ({@code /ojs/**}, and {@code /dashboard/**},
 * {@code /v3/api-docs/**}, {@code /swagger-ui/**} where they exist), when Spring Security is on the classpath.
 * Replace the {@code pgvs3SecurityFilterChain} bean to secure them differently.
 */
@AutoConfiguration(after = Pgvs3WebAutoConfiguration.class,
        afterName = "org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration",
        beforeName = "org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration")
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({ SecurityFilterChain.class, HttpSecurity.class })
@ConditionalOnBean(QueueCatalog.class)
@ConditionalOnBooleanProperty("pgvs3.http.enabled")
@EnableConfigurationProperties({ Pgvs3SecurityProperties.class, Pgvs3CorsProperties.class })
@EnableWebSecurity
public class Pgvs3SecurityAutoConfiguration {

    /** The pgvs3 chain comes before an application's own chains, which may match every request. */
    public static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 100;

    /** The paths the pgvs3 filter chain always guards; see {@link #paths} for the others. */
    public static final String[] PATHS = { "/ojs", "/ojs/**" };

    /** The GET routes every caller may use. */
    static final String[] OPEN_ROUTES = { "/ojs/v1/health", "/ojs/manifest" };

    /**
     * The paths the pgvs3 filter chain guards: the OJS routes, and the dashboard and the OpenAPI description and
     * Swagger UI only when pgvs3 serves them, so that an application's own paths of those names stay its own.
     */
    static List<String> paths(Environment environment, ClassLoader classLoader) {
        List<String> paths = new ArrayList<>(List.of(PATHS));
        if (environment.getProperty("pgvs3.dashboard.enabled", Boolean.class, false)) {
            paths.addAll(List.of("/dashboard", "/dashboard/**"));
        }
        boolean docs = ClassUtils.isPresent("org.springdoc.core.customizers.OpenApiCustomizer", classLoader)
                && environment.getProperty("springdoc.api-docs.enabled", Boolean.class, true);
        if (docs) {
            String path = environment.getProperty("springdoc.api-docs.path", "/v3/api-docs");
            paths.addAll(List.of(path, path + "/**"));
            if (ClassUtils.isPresent("org.springdoc.webmvc.ui.SwaggerConfig", classLoader)
                    && environment.getProperty("springdoc.swagger-ui.enabled", Boolean.class, true)) {
                paths.addAll(List.of(environment.getProperty("springdoc.swagger-ui.path", "/swagger-ui.html"),
                        "/swagger-ui/**"));
            }
        }
        return paths;
    }

    /**
     * Spring Boot's default chain (every other path needs a login) backs off as soon as any chain exists, and
     * pgvs3's would be the first: this keeps it for an application that declares no chain of its own (nor gets
     * Boot's actuator chain). Declared first, so that its condition sees only the chains defined before.
     */
    @Bean
    @Order(SecurityFilterProperties.BASIC_AUTH_ORDER)
    @ConditionalOnMissingBean(SecurityFilterChain.class)
    public SecurityFilterChain pgvs3ApplicationDefaultSecurityFilterChain(HttpSecurity http) throws Exception {
        http.authorizeHttpRequests(requests -> requests.anyRequest().authenticated());
        http.formLogin(Customizer.withDefaults());
        http.httpBasic(Customizer.withDefaults());
        return http.build();
    }

    @Bean
    @ConditionalOnMissingBean
    public CatalogTokenStore pgvs3CatalogTokenStore(DataSource dataSource, QueueCatalog migrated) {
        return new CatalogTokenStore(dataSource);
    }

    @Bean
    @ConditionalOnMissingBean
    public TokenRegistry pgvs3TokenRegistry(Pgvs3SecurityProperties properties, CatalogTokenStore catalog) {
        Map<String, ApiToken> configured = new LinkedHashMap<>();
        for (int i = 0; i < properties.getTokens().size(); i++) {
            Pgvs3SecurityProperties.Token token = properties.getTokens().get(i);
            String prefix = "pgvs3.security.tokens[" + i + "]";
            try {
                if (token.getName() == null || token.getName().isBlank()) {
                    throw new IllegalArgumentException("a token needs a name");
                }
                String hash = TokenHashes.normalize(token.getHash());
                ApiToken parsed = new ApiToken(token.getName(), Scope.parse(token.getScopes()), token.getQueues());
                if (configured.putIfAbsent(hash, parsed) != null) {
                    throw new IllegalArgumentException("two tokens have the same hash");
                }
            }
            catch (IllegalArgumentException ex) {
                throw new IllegalStateException(prefix + ": " + ex.getMessage());
            }
        }
        return new TokenRegistry(configured, catalog);
    }

    @Bean
    @ConditionalOnMissingBean
    public AnonymousAccessPolicy pgvs3AnonymousAccessPolicy(TokenRegistry tokens, Pgvs3SecurityProperties properties,
            Environment environment) {
        return new AnonymousAccessPolicy(tokens, listenAddresses(environment), properties.isAllowAnonymous());
    }

    /** Where the application listens: the server's address, and the management server's when it has its own port. */
    static List<String> listenAddresses(Environment environment) {
        List<String> addresses = new ArrayList<>();
        addresses.add(environment.getProperty("server.address"));
        String managementPort = environment.getProperty("management.server.port");
        boolean separateManagementServer = managementPort != null && !managementPort.isBlank()
                && !managementPort.trim().equals("-1")
                && !managementPort.trim().equals(environment.getProperty("server.port", "8080").trim());
        if (separateManagementServer) {
            addresses.add(environment.getProperty("management.server.address"));
        }
        return addresses;
    }

    @Bean
    @ConditionalOnMissingBean
    public OjsSecurityErrorHandler pgvs3SecurityErrorHandler(Pgvs3JsonMapper json) {
        return new OjsSecurityErrorHandler(json.mapper());
    }

    @Bean
    @ConditionalOnMissingBean
    public HealthDetailsPolicy pgvs3HealthDetailsPolicy() {
        return HealthDetailsPolicy.AUTHENTICATED;
    }

    @Bean
    @ConditionalOnMissingBean
    public TokenAdminController pgvs3TokenAdminController(CatalogTokenStore store, TokenRegistry registry) {
        return new TokenAdminController(store, registry);
    }

    @Bean
    @Order(ORDER)
    @ConditionalOnMissingBean(name = "pgvs3SecurityFilterChain")
    public SecurityFilterChain pgvs3SecurityFilterChain(HttpSecurity http, TokenRegistry tokens,
            AnonymousAccessPolicy anonymous, OjsSecurityErrorHandler errors, Pgvs3JsonMapper json,
            Pgvs3CorsProperties cors, Environment environment, ResourceLoader resources) throws Exception {
        http.securityMatcher(paths(environment, resources.getClassLoader()).toArray(String[]::new));
        applyTokenAuthentication(http, tokens, anonymous, errors, openRoutes(OPEN_ROUTES));
        CorsConfiguration configuration = cors.toConfiguration();
        if (configuration != null) {
            UrlBasedCorsConfigurationSource source = new UrlBasedCorsConfigurationSource();
            source.registerCorsConfiguration("/ojs/**", configuration);
            http.cors(c -> c.configurationSource(source));
        }
        http.authorizeHttpRequests(requests -> requests
                .requestMatchers(HttpMethod.GET, OPEN_ROUTES).permitAll()
                .anyRequest().access(new ScopeAuthorizationManager()));
        http.addFilterAfter(new QueueBodyAccessFilter(json.mapper(), errors), AuthorizationFilter.class);
        return http.build();
    }

    /**
     * The stateless token set-up shared by every pgvs3 filter chain (the server's own chain uses it too): no
     * session, no CSRF token (credentials are never sent by a browser on its own except Basic, and a cross-origin
     * mutation is refused by the mutation guard), OJS error bodies for 401 and 403.
     */
    public static void applyTokenAuthentication(HttpSecurity http, TokenRegistry tokens,
            AnonymousAccessPolicy anonymous, OjsSecurityErrorHandler errors, RequestMatcher openRoutes)
            throws Exception {
        http.csrf(csrf -> csrf.disable())
                .cors(cors -> cors.disable())
                .formLogin(form -> form.disable())
                .httpBasic(basic -> basic.disable())
                .logout(logout -> logout.disable())
                .requestCache(cache -> cache.disable())
                .sessionManagement(session -> session.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
                .exceptionHandling(exceptions -> exceptions.authenticationEntryPoint(errors).accessDeniedHandler(errors))
                .addFilterBefore(new TokenAuthenticationFilter(tokens, anonymous, errors, openRoutes),
                        AnonymousAuthenticationFilter.class);
    }

    /** A matcher of GET requests to {@code patterns}, for the open routes of a chain. */
    public static RequestMatcher openRoutes(String... patterns) {
        PathPatternRequestMatcher.Builder builder = PathPatternRequestMatcher.withDefaults();
        return new OrRequestMatcher(java.util.Arrays.stream(patterns)
                .map(pattern -> (RequestMatcher) builder.matcher(HttpMethod.GET, pattern)).toList());
    }
}
