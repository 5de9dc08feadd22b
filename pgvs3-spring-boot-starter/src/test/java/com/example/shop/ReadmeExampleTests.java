package com.example.shop;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The example application shown in the README is exactly the one {@link ShopApplicationTests} runs.
 */
class ReadmeExampleTests {

    @Test
    void theReadmeShowsTheTestedExample() throws Exception {
        String readme = Files.readString(Path.of("../README.md"));
        Matcher block = Pattern.compile("```java\\n(package com\\.example\\.shop;.*?)```", Pattern.DOTALL).matcher(readme);
        assertThat(block.find()).as("a java block with the example in README.md").isTrue();
        String tested = Files.readString(Path.of("src/test/java/com/example/shop/ShopApplication.java"));
        assertThat(block.group(1)).isEqualTo(tested);
    }
}
