package io.pgvs3.spring.web.security;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.core.json.JsonFields;
import tools.jackson.databind.JsonNode;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * Tokens kept in the catalog, under {@code /ojs/v1/admin/tokens} (admin scope): create (the value is in the answer,
 * and nowhere else, ever), list, revoke.
 */
@RestController
public class TokenAdminController {

    private final CatalogTokenStore store;
    private final TokenRegistry registry;

    public TokenAdminController(CatalogTokenStore store, TokenRegistry registry) {
        this.store = store;
        this.registry = registry;
    }

    @PostMapping("/ojs/v1/admin/tokens")
    public ResponseEntity<Map<String, Object>> create(@RequestBody(required = false) JsonNode body) {
        JsonFields.object(body);
        String name = JsonFields.requiredString(body, "name");
        if (name.isBlank() || name.length() > 255 || name.chars().anyMatch(Character::isISOControl)) {
            throw Pgvs3Exception.invalidRequest("'name' must be 1 to 255 printable characters", "name");
        }
        Set<Scope> scopes;
        List<String> queues = strings(body, "queues");
        try {
            scopes = Scope.parse(strings(body, "scopes"));
        }
        catch (IllegalArgumentException ex) {
            throw Pgvs3Exception.invalidRequest(ex.getMessage(), "scopes");
        }
        try {
            queues.forEach(ApiToken::validatePattern);
        }
        catch (IllegalArgumentException ex) {
            throw Pgvs3Exception.invalidRequest(ex.getMessage(), "queues");
        }
        requireWithinCaller(scopes, queues);
        CatalogTokenStore.Created created;
        try {
            created = store.create(name, scopes, queues);
        }
        catch (DuplicateKeyException ex) {
            throw new Pgvs3Exception(ErrorCode.DUPLICATE, "a token named '" + name + "' exists; revoke it first",
                    Map.of("name", name));
        }
        registry.catalogChanged();
        Map<String, Object> view = view(created.token());
        view.put("token", created.value());
        return ResponseEntity.status(HttpStatus.CREATED).body(view);
    }

    /** A token may only hand on rights it has: no scope it lacks, no queue beyond its patterns. */
    private static void requireWithinCaller(Set<Scope> scopes, List<String> queues) {
        if (!(SecurityContextHolder.getContext().getAuthentication() instanceof TokenAuthentication caller)) {
            return;
        }
        ApiToken creator = caller.token();
        for (Scope scope : scopes) {
            if (!creator.has(scope)) {
                throw new Pgvs3Exception(ErrorCode.FORBIDDEN, "token '" + creator.name() + "' lacks the scope '"
                        + scope.value() + "' and cannot grant it", Map.of("scopes", scope.value()));
            }
        }
        if (creator.restrictedToQueues() && (queues.isEmpty() || !creator.queues().containsAll(queues))) {
            throw new Pgvs3Exception(ErrorCode.FORBIDDEN, "token '" + creator.name()
                    + "' is limited to queue patterns and can only grant a subset of them", Map.of("queues", queues));
        }
    }

    @GetMapping("/ojs/v1/admin/tokens")
    public Map<String, Object> list() {
        return Map.of("tokens", store.list().stream().map(TokenAdminController::view).toList());
    }

    @DeleteMapping("/ojs/v1/admin/tokens/{name}")
    public Map<String, Object> revoke(@PathVariable String name) {
        if (!store.revoke(name)) {
            throw Pgvs3Exception.notFound("no token named '" + name + "' in the catalog"
                    + " (tokens given in configuration are removed from the configuration)");
        }
        registry.catalogChanged();
        return Map.of("revoked", name);
    }

    private static Map<String, Object> view(CatalogTokenStore.StoredToken stored) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("name", stored.token().name());
        view.put("scopes", stored.token().scopes().stream().map(Scope::value).sorted().toList());
        view.put("queues", stored.token().queues());
        view.put("created_at", stored.createdAt().toString());
        return view;
    }

    private static List<String> strings(JsonNode body, String field) {
        JsonNode node = body.get(field);
        List<String> values = new ArrayList<>();
        if (node == null || node.isNull()) {
            return values;
        }
        if (!node.isArray()) {
            throw Pgvs3Exception.invalidRequest("'" + field + "' must be an array of strings", field);
        }
        for (JsonNode value : node) {
            if (!value.isString()) {
                throw Pgvs3Exception.invalidRequest("'" + field + "' must be an array of strings", field);
            }
            values.add(value.stringValue());
        }
        return values;
    }
}
