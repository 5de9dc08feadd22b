package io.pgvs3.spring.web.security;

import org.springframework.security.authentication.AbstractAuthenticationToken;
import org.springframework.security.core.authority.SimpleGrantedAuthority;

/** An authenticated caller: the token it presented (or {@link ApiToken#ANONYMOUS} on an open server). */
public class TokenAuthentication extends AbstractAuthenticationToken {

    private final ApiToken token;

    public TokenAuthentication(ApiToken token) {
        super(token.scopes().stream().map(scope -> new SimpleGrantedAuthority("SCOPE_" + scope.value())).toList());
        this.token = token;
        setAuthenticated(true);
    }

    public ApiToken token() {
        return token;
    }

    @Override
    public Object getCredentials() {
        return "";
    }

    @Override
    public Object getPrincipal() {
        return token.name();
    }
}
