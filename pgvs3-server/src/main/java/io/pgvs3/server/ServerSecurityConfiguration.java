package io.pgvs3.server;

import io.pgvs3.spring.autoconfigure.Pgvs3SecurityAutoConfiguration;
import io.pgvs3.spring.web.security.AnonymousAccessPolicy;
import io.pgvs3.spring.web.security.OjsSecurityErrorHandler;
import io.pgvs3.spring.web.security.TokenAuthentication;
import io.pgvs3.spring.web.security.TokenRegistry;
import jakarta.servlet.DispatcherType;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpMethod;
import org.springframework.security.authorization.AuthorizationDecision;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

/**
 * Everything the server serves outside the pgvs3 paths (actuator, error dispatches, unknown routes): the same
 * tokens; {@code /actuator/health} is open for probes but shows its details only to an authenticated caller
 * ({@code management.endpoint.health.show-details=when-authorized}); every other path needs a token (any scope).
 */
@Configuration(proxyBeanMethods = false)
public class ServerSecurityConfiguration {

    @Bean
    @Order(Ordered.LOWEST_PRECEDENCE)
    public SecurityFilterChain pgvs3ServerFilterChain(HttpSecurity http, TokenRegistry tokens,
            AnonymousAccessPolicy anonymous, OjsSecurityErrorHandler errors) throws Exception {
        Pgvs3SecurityAutoConfiguration.applyTokenAuthentication(http, tokens, anonymous, errors,
                Pgvs3SecurityAutoConfiguration.openRoutes("/actuator/health", "/actuator/health/**", "/error"));
        http.authorizeHttpRequests(requests -> requests
                .dispatcherTypeMatchers(DispatcherType.ERROR).permitAll()
                .requestMatchers("/error").permitAll()
                .requestMatchers(HttpMethod.GET, "/actuator/health", "/actuator/health/**").permitAll()
                .anyRequest().access((authentication, context) ->
                        new AuthorizationDecision(authentication.get() instanceof TokenAuthentication)));
        return http.build();
    }
}
