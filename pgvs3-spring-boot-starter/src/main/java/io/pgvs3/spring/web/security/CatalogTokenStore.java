package io.pgvs3.spring.web.security;

import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import javax.sql.DataSource;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Tokens kept in the catalog table {@code s3p.api_tokens}, which holds only their SHA-256.
 */
public class CatalogTokenStore {

    private static final String COLUMNS = "name, scopes, queues, created_at";

    private static final String INSERT_SQL = "INSERT INTO s3p.api_tokens (name, token_hash, scopes, queues)"
            + " VALUES (?, ?, ?::text[], ?::text[]) RETURNING " + COLUMNS;

    private static final String DELETE_BY_NAME_SQL = "DELETE FROM s3p.api_tokens WHERE name = ?";

    private static final String SELECT_ALL_SQL = "SELECT " + COLUMNS + " FROM s3p.api_tokens ORDER BY name";

    private static final String SELECT_BY_HASH_SQL = "SELECT " + COLUMNS + " FROM s3p.api_tokens WHERE token_hash = ?";

    private static final String ANY_SQL = "SELECT EXISTS (SELECT 1 FROM s3p.api_tokens)";

    static final int QUERY_TIMEOUT_SECONDS = 3;

    private final JdbcTemplate jdbc;

    public CatalogTokenStore(DataSource dataSource) {
        this.jdbc = new JdbcTemplate(dataSource);
        // every request with a token waits for this lookup: a stuck database must not hold it for long
        this.jdbc.setQueryTimeout(QUERY_TIMEOUT_SECONDS);
    }

    /** A token just created: its record, and its value, which is never available again. */
    public record Created(StoredToken token, String value) {
    }

    /** A token as listed: never its value nor its hash. */
    public record StoredToken(ApiToken token, Instant createdAt) {
    }

    /**
     * Creates a token named {@code name}.
     * @throws DuplicateKeyException when a token of that name exists
     */
    public Created create(String name, Set<Scope> scopes, List<String> queues) {
        ApiToken token = new ApiToken(name, scopes, queues);
        String value = TokenHashes.newToken();
        StoredToken stored = jdbc.queryForObject(INSERT_SQL, this::row, name,
                TokenHashes.sha256(value), textArray(token.scopes().stream().map(Scope::value).sorted().toList()),
                textArray(token.queues()));
        return new Created(stored, value);
    }

    /** Deletes the token named {@code name}; false when there is none. */
    public boolean revoke(String name) {
        return jdbc.update(DELETE_BY_NAME_SQL, name) > 0;
    }

    public List<StoredToken> list() {
        return jdbc.query(SELECT_ALL_SQL, this::row);
    }

    public Optional<ApiToken> findByHash(String hash) {
        return jdbc.query(SELECT_BY_HASH_SQL, this::row, hash)
                .stream().findFirst().map(StoredToken::token);
    }

    public boolean any() {
        return Boolean.TRUE.equals(jdbc.queryForObject(ANY_SQL, Boolean.class));
    }

    private StoredToken row(ResultSet rs, int rowNum) throws SQLException {
        List<String> scopes = strings(rs.getArray("scopes"));
        return new StoredToken(new ApiToken(rs.getString("name"), Scope.parse(scopes), strings(rs.getArray("queues"))),
                rs.getTimestamp("created_at").toInstant());
    }

    private static List<String> strings(Array array) throws SQLException {
        return array == null ? List.of() : Arrays.stream((Object[]) array.getArray()).map(Object::toString).toList();
    }

    /** A PostgreSQL text[] literal; every element quoted, so no element can break out of it. */
    private static String textArray(List<String> values) {
        StringBuilder literal = new StringBuilder("{");
        for (int i = 0; i < values.size(); i++) {
            if (i > 0) {
                literal.append(',');
            }
            literal.append('"').append(values.get(i).replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
        }
        return literal.append('}').toString();
    }

}
