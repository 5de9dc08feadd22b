package io.pgvs3.embedded;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * An exclusive lock on {@value #FILE_NAME} in the data directory, held by the JVM that runs its server for as long
 * as it runs it. The kernel releases it when that JVM dies, however it dies: a server found running on a data
 * directory whose lock could be taken was left behind by a dead JVM, while a lock held elsewhere means a live JVM
 * still uses the directory and its server must be left alone.
 */
final class DataDirectoryLock implements AutoCloseable {

    static final String FILE_NAME = "pgvs3.lock";

    private final FileChannel channel;
    private final FileLock lock;

    private DataDirectoryLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    static DataDirectoryLock acquire(Path dataDirectory) throws IOException {
        Path file = dataDirectory.resolve(FILE_NAME);
        FileChannel channel = FileChannel.open(file, Set.of(StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        FileLock lock;
        try {
            lock = channel.tryLock();
        }
        catch (OverlappingFileLockException inThisJvm) {
            lock = null;
        }
        catch (IOException ex) {
            channel.close();
            throw ex;
        }
        if (lock == null) {
            String holder = Files.readString(file, StandardCharsets.UTF_8).strip();
            channel.close();
            throw new IllegalStateException("The PostgreSQL data directory " + dataDirectory + " is in use by another "
                    + "running process" + (holder.isEmpty() ? "" : " (PID " + holder + ")")
                    + "; its PostgreSQL server was left alone");
        }
        channel.truncate(0);
        channel.write(ByteBuffer.wrap((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.UTF_8)), 0);
        return new DataDirectoryLock(channel, lock);
    }

    @Override
    public void close() {
        try {
            lock.release();
        }
        catch (IOException ignored) {
            // closing the channel releases it as well
        }
        try {
            channel.close();
        }
        catch (IOException ignored) {
            // nothing left to release
        }
    }
}
