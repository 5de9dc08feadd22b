package io.pgvs3.core.stream;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What listener containers rely on: a consumer subscribed from now on, a nack that dead-letters at once, and lag
 * that counts only events a consumer can see.
 */
class StreamListenerSupportTest extends StreamTestSupport {

    @Test
    void aConsumerSubscribedFromNowGetsOnlyWhatCommitsAfterwards() {
        String queue = "from-now";
        streams.subscribe(queue, "early", null);
        List<String> before = ids(appendMany(queue, 3));
        streams.subscribe(queue, "at-latest-tick", null);
        streams.subscribeFromNow(queue, "from-now");
        List<String> after = ids(appendMany(queue, 2));
        assertThat(StreamLagTest.drain(queue, "from-now", 100)).containsExactlyElementsOf(after);
        assertThat(StreamLagTest.drain(queue, "at-latest-tick", 100)).as("the latest tick predates the first appends")
                .containsAll(before);
        assertThat(StreamLagTest.drain(queue, "early", 100)).hasSize(5);
    }

    @Test
    void aNackCanDeadLetterAtOnceWhateverTheRetriesLeft() {
        String queue = "dead-now";
        streams.subscribe(queue, "c", null);
        AppendResult message = append(queue, "t", "{\"n\":1}");
        StreamBatch batch = streams.receive(queue, "c", null, 10);
        NackResult result = streams.nack(queue, batch.batchId(), message.id(), Duration.ZERO, "not retryable", true);
        assertThat(result.action()).isEqualTo("dead_letter");
        assertThat(streams.config(queue).maxRetries()).isPositive();
        JsonNode letters = streams.deadLetters(queue, 10, 0);
        assertThat(letters.path("total").asInt()).isOne();
        assertThat(letters.path("dead_letters").get(0).path("reason").asString()).isEqualTo("not retryable");
    }

    @Test
    void lagCountsVisibleEventsOnly() {
        String queue = "visible-lag";
        streams.subscribe(queue, "c", null);
        // a rolled-back append draws sequence numbers and leaves no event
        TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        transactions.executeWithoutResult(status -> {
            streams.append(queue, List.of(new NewStreamMessage(null, "t", "{}", null)));
            status.setRollbackOnly();
        });
        JsonNode consumer = streams.consumers(queue).get(0);
        assertThat(consumer.path("lag").asLong()).isZero();
        assertThat(consumer.path("lag_seconds").asLong()).isZero();
        appendMany(queue, 2);
        assertThat(streams.consumers(queue).get(0).path("lag").asLong()).isEqualTo(2);
    }
}
