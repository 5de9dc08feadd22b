package io.pgvs3.server.hostile;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import io.pgvs3.server.ServerTestSupport;
import io.pgvs3.server.hostile.FuzzCorpus.Case;
import io.pgvs3.server.hostile.FuzzCorpus.Route;
import io.pgvs3.server.hostile.RawHttp.Reply;
import io.pgvs3.spring.web.security.TokenHashes;
import io.pgvs3.test.OjsClient;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.test.context.TestPropertySource;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A generated corpus of hostile requests over every route (see {@link FuzzCorpus}), with a fixed seed. Every answer
 * must be below 500 and every refusal the OJS error body; a refused request must leave every table of pgvs3 (the
 * catalog and each queue's schema) exactly as it was. Maintenance is off, so nothing else writes meanwhile. The
 * requests carry an admin token, so that creating a catalog token does not close the server to the rest; and every
 * route the controllers map is in the corpus (or is listed with the reason it is not).
 */
@Tag("slow")
@TestPropertySource(properties = { "pgvs3.maintenance.enabled=false", "pgvs3.security.tokens[0].name=fuzz",
        "pgvs3.security.tokens[0].scopes=admin", "pgvs3.security.tokens[0].hash=sha256:" + RouteFuzzTest.TOKEN_HASH })
class RouteFuzzTest extends ServerTestSupport {

    static final String TOKEN = "pgvs3_route-fuzz-token";

    /** The SHA-256 of {@link #TOKEN}. */
    static final String TOKEN_HASH = "566ad1a2da598d3cf1b163f452357efaac55e28ea7e0353bd1fdd423e42bfed2";

    /** Routes left out of the corpus, and why. */
    static final Map<String, String> NOT_FUZZED = Map.of(
            "POST /ojs/v1/admin/reset", "it deletes every queue, so the routes after it would find nothing",
            "GET /dashboard", "a redirect to the dashboard page",
            "GET /dashboard/", "the dashboard's HTML page, no JSON",
            "GET /error", "the server's error page, reached by error dispatches");

    @Autowired
    @Qualifier("requestMappingHandlerMapping")
    private RequestMappingHandlerMapping mappings;

    private static final long SEED = 20261201L;

    private static final String ID = "0190a5c3-7b2e-7c3d-9e4f-5a6b7c8d9e0f";

    static final List<Route> ROUTES = List.of(
            new Route("POST", "/ojs/v1/jobs", "{\"type\":\"fz.job\",\"args\":[1,\"a\"],\"meta\":{\"k\":\"v\"},"
                    + "\"options\":{\"queue\":\"fz-name\",\"priority\":1,\"retry\":{\"max_attempts\":2}}}"),
            new Route("POST", "/ojs/v1/jobs/batch", "{\"jobs\":[{\"type\":\"fz.job\",\"args\":[1]}]}"),
            new Route("GET", "/ojs/v1/jobs/{name}", null),
            new Route("POST", "/ojs/v1/workers/fetch", "{\"queues\":[\"fz-name\"],\"count\":1,\"worker_id\":\"w\","
                    + "\"visibility_timeout_ms\":30000}"),
            new Route("POST", "/ojs/v1/workers/ack", "{\"job_id\":\"" + ID + "\",\"worker_id\":\"w\",\"result\":{\"ok\":1}}"),
            new Route("POST", "/ojs/v1/workers/nack", "{\"job_id\":\"" + ID + "\",\"worker_id\":\"w\",\"error\":"
                    + "{\"code\":\"e\",\"message\":\"m\",\"retryable\":true},\"requeue\":false}"),
            new Route("POST", "/ojs/v1/workers/heartbeat", "{\"worker_id\":\"w\",\"job_ids\":[\"" + ID + "\"],"
                    + "\"visibility_timeout_ms\":30000}"),
            new Route("POST", "/ojs/v1/cron", "{\"name\":\"fz-name\",\"expression\":\"0 0 1 1 *\",\"timezone\":\"UTC\","
                    + "\"job_template\":{\"type\":\"fz.cron\",\"args\":[1]}}"),
            new Route("GET", "/ojs/v1/cron", null),
            new Route("GET", "/ojs/v1/cron/{name}", null),
            new Route("POST", "/ojs/v1/workflows", "{\"type\":\"graph\",\"name\":\"wf\",\"steps\":[{\"name\":\"a\","
                    + "\"type\":\"fz.wf\",\"args\":[]},{\"name\":\"b\",\"type\":\"fz.wf\",\"args\":[],\"depends_on\":[\"a\"]}]}"),
            new Route("GET", "/ojs/v1/workflows", null),
            new Route("GET", "/ojs/v1/workflows/{name}", null),
            new Route("POST", "/ojs/v1/cron/{name}/disable", null),
            new Route("POST", "/ojs/v1/cron/{name}/enable", null),
            new Route("GET", "/ojs/v1/queues/{name}/history", null),
            new Route("GET", "/ojs/v1/queues/{name}/storage", null),
            new Route("POST", "/ojs/v1/admin/tokens", "{\"name\":\"fz-name\",\"scopes\":[\"read\",\"produce\"],"
                    + "\"queues\":[\"fz-*\"]}"),
            new Route("GET", "/ojs/v1/admin/tokens", null),
            new Route("GET", "/dashboard/settings", null),
            new Route("GET", "/ojs/v1/dead-letter", null),
            new Route("POST", "/ojs/v1/dead-letter/{name}/retry", null),
            new Route("GET", "/ojs/v1/events?limit=5", null),
            new Route("GET", "/ojs/manifest", null),
            new Route("GET", "/ojs/v1/health", null),
            new Route("GET", "/ojs/v1/queues", null),
            new Route("POST", "/ojs/v1/queues/{name}/pause", null),
            new Route("POST", "/ojs/v1/queues/{name}/resume", null),
            new Route("GET", "/ojs/v1/queues/{name}/stats", null),
            new Route("POST", "/ojs/v1/queues/{name}/job-events", "{\"stream\":\"fz-name.events\"}"),
            new Route("GET", "/ojs/v1/queues/{name}/job-events", null),
            new Route("POST", "/ojs/v1/queues/{name}/messages", "{\"type\":\"t\",\"id\":\"m1\",\"payload\":{\"a\":[1,2]},"
                    + "\"headers\":{\"h\":\"v\"}}"),
            new Route("POST", "/ojs/v1/queues/{name}/messages/batch", "{\"messages\":[{\"type\":\"t\",\"payload\":1}]}"),
            new Route("POST", "/ojs/v1/queues/{name}/consumers", "{\"consumer\":\"fz-name\"}"),
            new Route("GET", "/ojs/v1/queues/{name}/consumers", null),
            new Route("POST", "/ojs/v1/queues/{name}/receive", "{\"consumer\":\"fz-name\",\"max\":1}"),
            new Route("GET", "/ojs/v1/queues/fz-name/batches/{name}", null),
            new Route("GET", "/ojs/v1/queues/{name}/info", null),
            new Route("GET", "/ojs/v1/queues/{name}/config", null),
            new Route("POST", "/ojs/v1/queues/{name}/config", "{\"max_retries\":3,\"retention\":\"P1D\"}"),
            new Route("GET", "/ojs/v1/queues/{name}/dlq?limit=5", null),
            new Route("POST", "/ojs/v1/queues/fz-name/dlq/{name}/replay", null),
            new Route("POST", "/ojs/v1/queues/{name}/dlq/replay", null),
            new Route("POST", "/ojs/v1/streams/ack", "{\"queue\":\"fz-name\",\"batch_id\":1}"),
            new Route("POST", "/ojs/v1/streams/nack", "{\"queue\":\"fz-name\",\"batch_id\":1,\"message_id\":\"m1\","
                    + "\"retry_after\":\"PT1S\",\"reason\":\"r\"}"),
            // deletions last, so that the routes above find what they name
            new Route("DELETE", "/ojs/v1/queues/{name}/dlq?older_than=P1D", null),
            new Route("DELETE", "/ojs/v1/queues/{name}/job-events", null),
            new Route("DELETE", "/ojs/v1/queues/fz-name/consumers/{name}", null),
            new Route("DELETE", "/ojs/v1/jobs/{name}", null),
            new Route("DELETE", "/ojs/v1/workflows/{name}", null),
            new Route("DELETE", "/ojs/v1/dead-letter/{name}", null),
            new Route("DELETE", "/ojs/v1/cron/{name}", null),
            new Route("DELETE", "/ojs/v1/admin/tokens/{name}", null),
            new Route("DELETE", "/ojs/v1/queues/{name}", null));

    @Test
    void theTokenHashIsTheTokens() {
        assertThat(TokenHashes.sha256(TOKEN)).isEqualTo(TOKEN_HASH);
    }

    @Test
    void everyMappedRouteIsInTheCorpus() {
        Set<String> fuzzed = new TreeSet<>();
        ROUTES.forEach(route -> fuzzed.add(route.method() + " " + normalize(route.path())));
        Set<String> missing = new TreeSet<>();
        mappings.getHandlerMethods().forEach((info, method) -> {
            if (!method.getBeanType().getPackageName().startsWith("io.pgvs3")) {
                return;
            }
            for (String path : info.getPatternValues()) {
                Set<RequestMethod> methods = info.getMethodsCondition().getMethods();
                for (RequestMethod verb : methods.isEmpty() ? Set.of(RequestMethod.GET) : methods) {
                    String route = verb.name() + " " + path;
                    if (!NOT_FUZZED.containsKey(route) && !fuzzed.contains(verb.name() + " " + normalize(path))) {
                        missing.add(route);
                    }
                }
            }
        });
        assertThat(missing).as("routes without fuzz coverage: add them to ROUTES (or to NOT_FUZZED, with a reason)")
                .isEmpty();
    }

    /** A path with its query left out and each variable segment ({@code {x}}, or the corpus' name) as {@code *}. */
    private static String normalize(String path) {
        int query = path.indexOf('?');
        String bare = query < 0 ? path : path.substring(0, query);
        return bare.replaceAll("\\{[^/]*}", "*").replace("fz-name", "*");
    }

    @Test
    void noRequestOfTheCorpusGetsA5xxAndNoRefusedRequestWritesAnything() {
        OjsClient http = this.http.withBearer(TOKEN);
        assertThat(http.post("/ojs/v1/admin/reset", "").status()).isEqualTo(200);
        jdbc.execute(FINGERPRINT_FUNCTION);
        RawHttp raw = new RawHttp(port, Map.of("Authorization", "Bearer " + TOKEN));
        String empty = fingerprint();
        // a valid request per route first, so that the hostile ones meet existing queues, consumers and crons
        for (Route route : ROUTES) {
            if (!route.method().equals("DELETE")) {
                raw.request(route.method(), route.path().replace("{name}", "fz-name"),
                        route.body() == null ? Map.of() : Map.of("Content-Type", "application/json"),
                        route.body() == null ? null : route.body().getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
        }
        assertThat(fingerprint()).as("the valid requests wrote, and the fingerprint sees it").isNotEqualTo(empty);
        List<Case> corpus = new FuzzCorpus(SEED).generate(ROUTES);
        assertThat(corpus.size()).isGreaterThan(600);

        List<String> failures = new ArrayList<>();
        int refused = 0;
        long started = System.nanoTime();
        String before = fingerprint();
        for (Case c : corpus) {
            Reply reply = raw.request(c.method(), c.path(), c.headers(), c.body());
            String after = fingerprint();
            if (reply.status() < 100 || reply.status() >= 500) {
                failures.add(c.label() + " -> " + reply);
            }
            else if (c.mustBe406() && reply.status() != 406) {
                failures.add(c.label() + " -> " + reply + " (expected 406)");
            }
            else if (reply.status() >= 400) {
                refused++;
                if (!reply.isOjsError()) {
                    failures.add(c.label() + " -> " + reply + " (not the OJS error body)");
                }
                if (!after.equals(before)) {
                    failures.add(c.label() + " -> " + reply + " (refused, yet the database changed)");
                }
            }
            else if (!reply.body().isEmpty() && reply.json().isMissingNode()) {
                failures.add(c.label() + " -> " + reply + " (not JSON)");
            }
            before = after;
        }
        System.out.printf("route fuzz: %d requests over %d routes, %d refused, %d failures, %d ms%n", corpus.size(),
                ROUTES.size(), refused, failures.size(), (System.nanoTime() - started) / 1_000_000);
        assertThat(failures).isEmpty();
        assertThat(refused).isGreaterThan(corpus.size() / 2);
    }

    private String fingerprint() {
        return jdbc.queryForObject("SELECT fuzz_fingerprint()", String.class);
    }

    /** A digest of every row of every pgvs3 table: the catalog's and each queue schema's. */
    private static final String FINGERPRINT_FUNCTION = """
            CREATE OR REPLACE FUNCTION public.fuzz_fingerprint() RETURNS text LANGUAGE plpgsql AS $$
            DECLARE
                t record;
                digest text;
                acc text := '';
            BEGIN
                FOR t IN SELECT n.nspname AS schema, c.relname AS name FROM pg_class c
                         JOIN pg_namespace n ON n.oid = c.relnamespace
                         WHERE c.relkind IN ('r', 'p') AND (n.nspname = 's3p' OR n.nspname LIKE 's3q\\_%')
                         AND c.relname <> 'flyway_schema_history'
                         ORDER BY 1, 2 LOOP
                    EXECUTE format('SELECT md5(coalesce(string_agg(x::text, ''|'' ORDER BY x::text), '''')) FROM ONLY %I.%I x',
                            t.schema, t.name) INTO digest;
                    acc := acc || t.schema || '.' || t.name || '=' || digest || ';';
                END LOOP;
                RETURN md5(acc);
            END $$
            """;
}
