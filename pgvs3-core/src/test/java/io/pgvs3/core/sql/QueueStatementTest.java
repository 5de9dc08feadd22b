package io.pgvs3.core.sql;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class QueueStatementTest {

    @Test
    void namesAreQualifiedByTheQueuesSchemaAndTheRestIsKeptAsWritten() {
        QueueStatement statement = QueueStatement.of("SELECT a FROM {stream_receive}(?, ?) JOIN {stream_ticks} t ON true");
        assertThat(statement.in("s3q_orders"))
                .isEqualTo("SELECT a FROM \"s3q_orders\".\"stream_receive\"(?, ?) JOIN \"s3q_orders\".\"stream_ticks\" t ON true");
        assertThat(QueueStatement.of("SELECT 1").in("s3q_x")).isEqualTo("SELECT 1");
        assertThat(QueueStatement.of("{stream_ack}").in("s\"q")).isEqualTo("\"s\"\"q\".\"stream_ack\"");
    }

    @Test
    void theRowPlaceholderIsTheNumberGiven() {
        assertThat(QueueStatement.of("SELECT {row}, x FROM {stream_events} e").in("s3q_a", 42))
                .isEqualTo("SELECT 42, x FROM \"s3q_a\".\"stream_events\" e");
    }
}
