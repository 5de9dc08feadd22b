package io.pgvs3.server.dashboard;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.pgvs3.test.OjsClient;
import io.pgvs3.test.OjsClient.Response;
import io.pgvs3.test.TestDatabase;
import io.pgvs3.test.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.NoSuchElementException;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The dashboard as an operator uses it: the packaged server jar in its own JVM, a real headless Chromium, and
 * clicks. The page refreshes itself by polling, so every check waits for the page to show what the server holds.
 * Skipped (not failed) only when no Chromium and chromedriver are installed; {@code .ci/run} installs them.
 * With {@code -Dpgvs3.screenshots=<dir>} it saves a screenshot of each page there (the README's come from
 * {@code docs/img}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DashboardBrowserIT {

    private static final Duration PATIENCE = Duration.ofSeconds(45);

    private TestDatabase database;
    private ServerJar server;
    private OjsClient http;
    private WebDriver browser;
    private Path profile;

    @BeforeAll
    void start() throws Exception {
        assumeTrue(HeadlessChromium.installed(), "dashboard browser tests skipped: no chromium and chromedriver on the"
                + " PATH (install Debian's chromium and chromium-driver packages to run them)");
        database = TestPostgres.get().newDatabase();
        server = ServerJar.start(database, "server");
        http = new OjsClient(server.url(""));
        profile = Files.createTempDirectory("pgvs3-chromium");
        browser = HeadlessChromium.start(profile);
    }

    @AfterAll
    void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    @Order(1)
    void aQueueAppearsOnTheQueuesPageAfterAnAppend() {
        open(server, "/dashboard/#/queues");
        await(d -> text(By.cssSelector("main h1")).startsWith("Queues"));
        assertThat(browser.findElements(By.cssSelector("tr[data-queue='browser-orders']"))).isEmpty();

        append("browser-orders", "order.created", Map.of("order_id", 1));

        await(d -> !d.findElements(By.cssSelector("tr[data-queue='browser-orders']")).isEmpty());
        assertThat(text(By.cssSelector("tr[data-queue='browser-orders'] .pill"))).isEqualTo("active");

        click(By.cssSelector("tr[data-queue='browser-orders'] button[data-action='pause']"));
        await(d -> "paused".equals(text(By.cssSelector("tr[data-queue='browser-orders'] .pill"))));
        assertThat(http.get("/ojs/v1/queues/browser-orders/stats").json().path("queue").path("paused").asBoolean()).isTrue();
        click(By.cssSelector("tr[data-queue='browser-orders'] button[data-action='resume']"));
        await(d -> "active".equals(text(By.cssSelector("tr[data-queue='browser-orders'] .pill"))));
        assertThat(http.get("/ojs/v1/queues/browser-orders/stats").json().path("queue").path("paused").asBoolean()).isFalse();
    }

    @Test
    @Order(2)
    void aConsumerLagGoesUpAndThenDownAfterAReceiveAndAck() throws Exception {
        append("lag-demo", "reading", Map.of("n", 0));
        assertThat(http.post("/ojs/v1/queues/lag-demo/consumers", Map.of("consumer", "billing")).status()).isIn(200, 201);
        open(server, "/dashboard/#/queues/lag-demo");
        By lag = By.cssSelector("tr[data-consumer='billing'] td.lag");
        await(d -> text(lag).matches("\\d+"));
        long before = Long.parseLong(text(lag));

        for (int i = 1; i <= 5; i++) {
            append("lag-demo", "reading", Map.of("n", i));
        }
        await(d -> String.valueOf(before + 5).equals(text(lag)));
        for (int i = 0; i < 3; i++) {
            http.post("/ojs/v1/jobs", Map.of("type", "reading.aggregate", "args", List.of(i), "options",
                    Map.of("queue", "lag-demo")));
        }
        http.post("/ojs/v1/workers/fetch", Map.of("queues", List.of("lag-demo")));
        // the server-side history (one sample a second here) catches up with the rise
        await(d -> text(By.cssSelector("section[data-chart='lag'] .legend")).contains("billing " + (before + 5))
                && text(By.cssSelector("section[data-chart='jobs'] .legend")).contains("available 2"));
        HeadlessChromium.screenshot(browser, "queue-detail");

        JsonNode batch = http.post("/ojs/v1/queues/lag-demo/receive", Map.of("consumer", "billing", "max", 100)).json();
        assertThat(batch.path("messages").size()).isEqualTo((int) before + 5);
        assertThat(http.post("/ojs/v1/streams/ack", Map.of("queue", "lag-demo", "batch_id",
                batch.path("batch_id").asLong())).status()).isEqualTo(200);

        await(d -> "0".equals(text(lag)));
        assertThat(text(By.cssSelector("tr[data-table='stream_events_0'], tr[data-table='jobs']"))).isNotBlank();
    }

    @Test
    @Order(3)
    void aDeadLetteredStreamMessageIsReplayedWithAClick() throws Exception {
        deadLetterJob("mailer", "invoice.send", "SmtpError", "mailbox unavailable");
        append("audit-log", "user.deleted", Map.of("user", "ada"));
        http.post("/ojs/v1/queues/audit-log/config", Map.of("max_retries", 0));
        http.post("/ojs/v1/queues/audit-log/consumers", Map.of("consumer", "auditor", "from_tick", 0));
        JsonNode batch = http.post("/ojs/v1/queues/audit-log/receive", Map.of("consumer", "auditor")).json();
        JsonNode message = batch.path("messages").get(0);
        JsonNode nack = http.post("/ojs/v1/streams/nack", Map.of("queue", "audit-log", "batch_id",
                batch.path("batch_id").asLong(), "message_id", message.path("id").asString(), "reason", "schema mismatch"))
                .json();
        assertThat(nack.path("action").asString()).isEqualTo("dead_letter");
        http.post("/ojs/v1/streams/ack", Map.of("queue", "audit-log", "batch_id", batch.path("batch_id").asLong()));
        long letter = http.get("/ojs/v1/queues/audit-log/dlq").json().path("dead_letters").get(0).path("id").asLong();
        By row = By.cssSelector("tr[data-dead-letter='audit-log:" + letter + "']");

        open(server, "/dashboard/#/dead-letters");
        await(d -> text(row).contains("schema mismatch"));
        click(By.cssSelector("tr[data-dead-letter='audit-log:" + letter + "'] button[data-action='inspect']"));
        await(d -> text(By.cssSelector("tr[data-dead-letter='audit-log:" + letter + "'] pre.detail")).contains("\"ada\""));
        HeadlessChromium.screenshot(browser, "dead-letters");

        click(By.cssSelector("tr[data-dead-letter='audit-log:" + letter + "'] button[data-action='replay']"));

        await(d -> d.findElements(row).isEmpty());
        assertThat(http.get("/ojs/v1/queues/audit-log/dlq").json().path("dead_letters")).isEmpty();
        JsonNode replayed = http.post("/ojs/v1/queues/audit-log/receive", Map.of("consumer", "auditor")).json();
        assertThat(replayed.path("messages").size()).isEqualTo(1);
        assertThat(replayed.path("messages").get(0).path("payload").path("user").asString()).isEqualTo("ada");

        // dead-letter it again and purge the queue's dead letters, confirming the dialog
        http.post("/ojs/v1/streams/nack", Map.of("queue", "audit-log", "batch_id", replayed.path("batch_id").asLong(),
                "message_id", replayed.path("messages").get(0).path("id").asString(), "reason", "still broken"));
        await(d -> text(By.cssSelector("main")).contains("still broken"));
        click(By.cssSelector("button[data-action='purge all of audit-log']"));
        new WebDriverWait(browser, PATIENCE).until(ExpectedConditions.alertIsPresent()).accept();
        await(d -> text(By.cssSelector("main")).contains("No dead-lettered stream message."));
        assertThat(http.get("/ojs/v1/queues/audit-log/dlq").json().path("dead_letters")).isEmpty();
    }

    @Test
    @Order(4)
    void aDeadLetteredJobIsRetriedWithAClick() {
        String id = deadLetterJob("billing-jobs", "charge.card", "CardDeclined", "insufficient funds");
        By row = By.cssSelector("tr[data-job='" + id + "']");
        open(server, "/dashboard/#/dead-letters");
        await(d -> text(row).contains("CardDeclined: insufficient funds"));

        click(By.cssSelector("tr[data-job='" + id + "'] button[data-action='retry']"));

        await(d -> d.findElements(row).isEmpty());
        JsonNode job = http.get("/ojs/v1/jobs/" + id).json().path("job");
        assertThat(job.path("state").asString()).isEqualTo("available");
        JsonNode fetched = http.post("/ojs/v1/workers/fetch", Map.of("queues", List.of("billing-jobs"))).json();
        assertThat(fetched.path("jobs").get(0).path("id").asString()).isEqualTo(id);

        String discarded = deadLetterJob("billing-jobs", "charge.card", "CardDeclined", "card expired");
        By discardedRow = By.cssSelector("tr[data-job='" + discarded + "']");
        await(d -> text(discardedRow).contains("card expired"));
        click(By.cssSelector("tr[data-job='" + discarded + "'] button[data-action='discard']"));
        await(d -> d.findElements(discardedRow).isEmpty());
        assertThat(http.get("/ojs/v1/dead-letter?queue=billing-jobs").json().path("jobs")).isEmpty();
    }

    @Test
    @Order(5)
    void cronWorkflowsEventsAndTheApiPage() throws Exception {
        for (String name : List.of("nightly-report", "hourly-cleanup")) {
            assertThat(http.post("/ojs/v1/cron", Map.of("name", name, "expression", name.startsWith("nightly")
                    ? "0 2 * * *" : "0 * * * *", "job_template", Map.of("type", name.replace('-', '.'), "args", List.of(),
                    "options", Map.of("queue", "maintenance")))).status()).isEqualTo(201);
        }
        open(server, "/dashboard/#/cron");
        By nightly = By.cssSelector("tr[data-cron='nightly-report']");
        await(d -> text(nightly).contains("enabled"));
        click(By.cssSelector("tr[data-cron='nightly-report'] button[data-action='disable']"));
        await(d -> text(nightly).contains("disabled"));
        assertThat(http.get("/ojs/v1/cron/nightly-report").json().path("cron").path("enabled").asBoolean()).isFalse();
        HeadlessChromium.screenshot(browser, "cron");

        JsonNode workflow = http.post("/ojs/v1/workflows", Map.of("type", "chain", "name", "onboarding", "steps", List.of(
                Map.of("type", "account.create", "args", List.of("ada"), "options", Map.of("queue", "accounts")),
                Map.of("type", "welcome.send", "args", List.of("ada"), "options", Map.of("queue", "mailer"))))).json();
        String workflowId = workflow.path("workflow").path("id").asString();
        JsonNode step = http.post("/ojs/v1/workers/fetch", Map.of("queues", List.of("accounts"))).json().path("jobs").get(0);
        http.post("/ojs/v1/workers/ack", Map.of("job_id", step.path("id").asString()));
        open(server, "/dashboard/#/workflows");
        By panel = By.cssSelector("section[data-workflow='" + workflowId + "']");
        await(d -> text(panel).contains("1/2 steps completed"));
        assertThat(text(panel)).contains("account.create", "completed", "welcome.send", "enqueued");
        HeadlessChromium.screenshot(browser, "workflows");

        open(server, "/dashboard/#/events");
        await(d -> text(By.cssSelector("main")).contains("job.completed"));
        HeadlessChromium.screenshot(browser, "events");

        open(server, "/dashboard/#/queues");
        await(d -> browser.findElements(By.cssSelector("tr[data-queue]")).size() >= 5);
        HeadlessChromium.screenshot(browser, "queues");

        String api = browser.findElement(By.id("api-link")).getAttribute("href");
        assertThat(api).isEqualTo(server.url("/swagger-ui/index.html"));
        browser.get(api);
        await(d -> text(By.tagName("body")).contains("pgvs3 HTTP API")
                && text(By.tagName("body")).contains("/ojs/v1/queues/{queue}/dlq/{id}/replay"));
        HeadlessChromium.screenshot(browser, "api");
    }

    @Test
    @Order(6)
    void aReadOnlyServerHidesAndRefusesActions() throws Exception {
        try (ServerJar readOnly = ServerJar.start(database, "read-only", "--pgvs3.http.read-only=true")) {
            open(readOnly, "/dashboard/#/queues");
            await(d -> !d.findElements(By.cssSelector("tr[data-queue='mailer']")).isEmpty());
            assertThat(browser.findElement(By.id("mode")).isDisplayed()).isTrue();
            assertThat(browser.findElements(By.cssSelector("main button[data-action='pause']"))).isEmpty();
            HeadlessChromium.screenshot(browser, "read-only");

            open(readOnly, "/dashboard/#/dead-letters");
            await(d -> !d.findElements(By.cssSelector("tr[data-job]")).isEmpty());
            assertThat(browser.findElements(By.cssSelector("main button[data-action='retry']"))).isEmpty();
            assertThat(browser.findElements(By.cssSelector("main button[data-action='inspect']"))).isNotEmpty();

            open(readOnly, "/dashboard/#/cron");
            await(d -> !d.findElements(By.cssSelector("tr[data-cron='nightly-report']")).isEmpty());
            assertThat(browser.findElements(By.cssSelector("main button[data-action='enable']"))).isEmpty();

            Object status = ((JavascriptExecutor) browser).executeAsyncScript("var done = arguments[0];"
                    + " fetch('../ojs/v1/queues/mailer/pause', {method: 'POST', headers: {'Content-Type': 'application/json'},"
                    + " body: '{}'}).then(function (r) { done(r.status); }, function (e) { done(String(e)); });");
            assertThat(status).isEqualTo(403L);
            assertThat(http.get("/ojs/v1/queues/mailer/stats").json().path("queue").path("paused").asBoolean()).isFalse();
        }
    }

    @Test
    @Order(7)
    void withATokenTheBrowserSendsTheBasicCredentialsOfTheDashboardToTheApi() throws Exception {
        String token = io.pgvs3.spring.web.security.TokenHashes.newToken();
        try (ServerJar secured = ServerJar.start(database, "secured", "--pgvs3.security.tokens[0].name=ops",
                "--pgvs3.security.tokens[0].scopes=admin",
                "--pgvs3.security.tokens[0].hash=sha256:" + io.pgvs3.spring.web.security.TokenHashes.sha256(token))) {
            OjsClient ops = new OjsClient(secured.url("")).withBearer(token);
            assertThat(ops.post("/ojs/v1/queues/secured-orders/messages", Map.of("type", "order.created",
                    "payload", Map.of("order_id", 7))).status()).isEqualTo(201);
            // credentials in the URL, as an operator types them into the browser's prompt; then the page without them,
            // as it is after the prompt (a page whose URL holds credentials may not call fetch)
            browser.get(secured.url("/dashboard/").replace("http://", "http://ops:" + token + "@"));
            open(secured, "/dashboard/#/queues");

            // the page's calls under /ojs and /v3/api-docs get the credentials entered for /dashboard/
            Object status = ((JavascriptExecutor) browser).executeAsyncScript("var done = arguments[0];"
                    + " fetch('../ojs/v1/queues').then(function (r) { done(r.status); }, function (e) { done(String(e)); });");
            assertThat(status).isEqualTo(200L);
            Object docs = ((JavascriptExecutor) browser).executeAsyncScript("var done = arguments[0];"
                    + " fetch('../v3/api-docs').then(function (r) { done(r.status); }, function (e) { done(String(e)); });");
            assertThat(docs).isEqualTo(200L);
            await(d -> !d.findElements(By.cssSelector("tr[data-queue='secured-orders']")).isEmpty());
            click(By.cssSelector("tr[data-queue='secured-orders'] button[data-action='pause']"));
            await(d -> "paused".equals(text(By.cssSelector("tr[data-queue='secured-orders'] .pill"))));
            assertThat(ops.get("/ojs/v1/queues/secured-orders/stats").json().path("queue").path("paused").asBoolean())
                    .isTrue();
        }
    }

    private String deadLetterJob(String queue, String type, String errorType, String message) {
        Response created = http.post("/ojs/v1/jobs", Map.of("type", type, "args", List.of(Map.of("customer", 42)),
                "options", Map.of("queue", queue, "retry", Map.of("max_attempts", 1, "on_exhaustion", "dead_letter"))));
        assertThat(created.status()).isEqualTo(201);
        String id = created.json().path("job").path("id").asString();
        JsonNode fetched = http.post("/ojs/v1/workers/fetch", Map.of("queues", List.of(queue))).json().path("jobs").get(0);
        assertThat(fetched.path("id").asString()).isEqualTo(id);
        http.post("/ojs/v1/workers/nack", Map.of("job_id", id, "error", Map.of("type", errorType, "message", message,
                "retryable", false)));
        assertThat(http.get("/ojs/v1/jobs/" + id).json().path("job").path("dead_letter").asBoolean()).isTrue();
        return id;
    }

    private void append(String queue, String type, Map<String, Object> payload) {
        assertThat(http.post("/ojs/v1/queues/" + queue + "/messages", Map.of("type", type, "payload", payload)).status())
                .isEqualTo(201);
    }

    private void open(ServerJar target, String path) {
        browser.get(target.url(path));
    }

    private String text(By by) {
        try {
            return browser.findElement(by).getText();
        }
        catch (NoSuchElementException | StaleElementReferenceException ex) {
            return "";
        }
    }

    /** Clicks the element, finding it again when a refresh replaced it in between. */
    private void click(By by) {
        await(d -> {
            try {
                WebElement element = d.findElement(by);
                element.click();
                return true;
            }
            catch (NoSuchElementException | StaleElementReferenceException ex) {
                return false;
            }
        });
    }

    private void await(Function<WebDriver, Boolean> condition) {
        new WebDriverWait(browser, PATIENCE, Duration.ofMillis(200)).until(condition);
    }
}
