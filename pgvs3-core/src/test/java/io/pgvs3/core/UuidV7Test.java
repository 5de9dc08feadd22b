package io.pgvs3.core;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class UuidV7Test {

    @Test
    void idsAreVersion7WithTheRfcVariantAndTheCurrentMillisecond() {
        long before = System.currentTimeMillis();
        UUID id = UuidV7.generate();
        long after = System.currentTimeMillis();
        assertThat(id.version()).isEqualTo(7);
        assertThat(id.variant()).isEqualTo(2);
        assertThat(id.getMostSignificantBits() >>> 16).isBetween(before, after);
        assertThat(UuidV7.isValid(id.toString())).isTrue();
    }

    @Test
    void idsOfLaterMillisecondsSortAfterEarlierOnes() throws InterruptedException {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(UuidV7.generate().toString());
            Thread.sleep(2);
        }
        assertThat(ids).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void idsMadeTogetherAreDistinctValidAndAscending() {
        long before = System.currentTimeMillis();
        UUID[] ids = UuidV7.generate(1000);
        long after = System.currentTimeMillis();
        List<String> texts = new ArrayList<>();
        for (UUID id : ids) {
            assertThat(id.version()).isEqualTo(7);
            assertThat(id.variant()).isEqualTo(2);
            assertThat(id.getMostSignificantBits() >>> 16).isBetween(before, after);
            assertThat(UuidV7.isValid(id.toString())).isTrue();
            texts.add(id.toString());
        }
        assertThat(texts).hasSize(1000).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void aCounterThatRunsOutOfItsLowBitsCarriesIntoTheHighOnes() {
        UUID[] ids = UuidV7.sequence(1_700_000_000_000L, 0x0AB, 0x3FFFFFFFFFFFFFFEL, 3);
        assertThat(ids).extracting(UUID::toString).containsExactly(
                "018bcfe5-6800-70ab-bfff-fffffffffffe",
                "018bcfe5-6800-70ab-bfff-ffffffffffff",
                "018bcfe5-6800-70ac-8000-000000000000");
        assertThat(ids).allSatisfy(id -> assertThat(UuidV7.isValid(id.toString())).isTrue());
    }

    @Test
    void onlyLowercaseCanonicalVersion7IdsAreValid() {
        assertThat(UuidV7.isValid("0190a5c3-7b2e-7c3d-9e4f-5a6b7c8d9e0f")).isTrue();
        assertThat(UuidV7.isValid("0190A5C3-7B2E-7C3D-9E4F-5A6B7C8D9E0F")).isFalse();
        assertThat(UuidV7.isValid("550e8400-e29b-41d4-a716-446655440000")).isFalse();
        assertThat(UuidV7.isValid("0190a5c3-7b2e-7c3d-ce4f-5a6b7c8d9e0f")).isFalse();
        assertThat(UuidV7.isValid("not-a-uuid")).isFalse();
        assertThat(UuidV7.isValid(null)).isFalse();
    }
}
