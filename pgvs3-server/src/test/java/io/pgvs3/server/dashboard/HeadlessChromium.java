package io.pgvs3.server.dashboard;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * A real headless Chromium driven through the system's {@code chromedriver} (Debian's {@code chromium} and
 * {@code chromium-driver} packages), started with the flags a root user on a closed network needs.
 */
final class HeadlessChromium {

    /** System property naming the directory screenshots are written to; none are written without it. */
    static final String SCREENSHOTS = "pgvs3.screenshots";

    private HeadlessChromium() {
    }

    /** Whether both the browser and its driver are installed. */
    static boolean installed() {
        return browser() != null && driver() != null;
    }

    static WebDriver start(Path profile) {
        ChromeOptions options = new ChromeOptions();
        options.setBinary(browser());
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--window-size=1400,900", "--user-data-dir=" + profile.toAbsolutePath());
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(driver())
                .usingAnyFreePort().build();
        ChromeDriver driver = new ChromeDriver(service, options);
        driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(30));
        return driver;
    }

    /** Saves the page as {@code <name>.png} in the directory named by {@value #SCREENSHOTS}, when it is set. */
    static void screenshot(WebDriver driver, String name) throws IOException {
        String directory = System.getProperty(SCREENSHOTS);
        if (directory == null || directory.isBlank()) {
            return;
        }
        Path target = Path.of(directory).resolve(name + ".png");
        Files.createDirectories(target.getParent());
        Files.write(target, ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES));
    }

    private static File browser() {
        return executable("chromium", "chromium-browser", "google-chrome");
    }

    private static File driver() {
        return executable("chromedriver");
    }

    private static File executable(String... names) {
        for (String directory : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            for (String name : names) {
                File candidate = new File(directory, name);
                if (candidate.isFile() && candidate.canExecute()) {
                    return candidate;
                }
            }
        }
        return null;
    }
}
