package io.fabricd.agent.state;

import io.fabricd.collectors.files.FolderChain;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One agent per node name on a host. A running agent that probes holds a lock on
 * {@code node-NAME.lock} in a host-wide folder ({@link #DEFAULT_DIR}, else
 * {@code $XDG_RUNTIME_DIR/fabricd}) for as long as it runs, and writes into it who it is. A second
 * agent with the same node name finds the lock taken and says which agent holds it. The kernel
 * drops the lock when its process ends, however it ends: a crashed agent leaves a file, never a
 * stale lock. A folder that another user can change ({@link FolderChain}) is refused: no lock taken.
 * The folder is made 0700 and the lock 0600: no other user can read or lock it.
 */
public final class NodeNameLock implements AutoCloseable {
    /** Where the locks are for an agent run as root (systemd's RuntimeDirectory=fabricd). */
    public static final Path DEFAULT_DIR = Path.of("/run/fabricd");
    /** Locks this JVM holds: closing a second channel on a locked file would drop the process' lock. */
    private static final Map<Path, NodeNameLock> HELD = new ConcurrentHashMap<>();

    private final Path file;
    private final FileChannel channel;
    private final FileLock lock;
    /** Who holds the lock when it is another agent ("pid 123, HTTP 0.0.0.0:9530"); null when this one holds it. */
    private final String other;

    private NodeNameLock(Path file, FileChannel channel, FileLock lock, String other) {
        this.file = file;
        this.channel = channel;
        this.lock = lock;
        this.other = other;
    }

    /** The folder for the locks: /run/fabricd where it can be written, else $XDG_RUNTIME_DIR/fabricd; null for neither. */
    public static Path defaultDir() {
        Path run = DEFAULT_DIR.getParent();
        if (Files.isDirectory(DEFAULT_DIR) ? Files.isWritable(DEFAULT_DIR) : Files.isWritable(run)) {
            return DEFAULT_DIR;
        }
        String xdg = System.getenv("XDG_RUNTIME_DIR");
        return xdg != null && !xdg.isBlank() && Files.isWritable(Path.of(xdg)) ? Path.of(xdg, "fabricd") : null;
    }

    /**
     * Takes the lock of {@code nodeName} in {@code dir}, writing {@code self} (who this agent is) into
     * it; when another agent holds it, a NodeNameLock that holds nothing and says who does. IOException
     * when the folder or file cannot be used (then nothing is known); {@link FolderChain.Refused} when
     * another user can change the folder or one above it.
     */
    public static synchronized NodeNameLock take(Path dir, String nodeName, String self) throws IOException {
        FolderChain.checkNearest(dir);
        StateAccess.createFolder(dir);
        if (Files.isSymbolicLink(dir)) {
            throw new IOException(dir + " is a symbolic link");
        }
        // the folder and every folder above it can be changed by root and this user only: the real path, checked
        Path file = FolderChain.check(dir).resolve("node-" + fileName(nodeName) + ".lock");
        NodeNameLock inJvm = HELD.get(file);
        if (inJvm != null) {
            return new NodeNameLock(file, null, null, read(inJvm.channel));
        }
        // this user's alone: another user's read lock on it would pass for a second agent
        FileChannel ch = FileChannel.open(file, Set.of(StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS), StateAccess.FILE);
        FileLock lock;
        try {
            lock = ch.tryLock();
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e instanceof IOException io ? io : new IOException(e.getMessage(), e);
        }
        if (lock == null) {
            String holder = read(ch);
            ch.close();
            return new NodeNameLock(file, null, null, holder);
        }
        ch.truncate(0);
        ch.write(ByteBuffer.wrap((self + "\n").getBytes(StandardCharsets.UTF_8)), 0);
        ch.force(false);
        NodeNameLock held = new NodeNameLock(file, ch, lock, null);
        HELD.put(file, held);
        return held;
    }

    /** Null when this agent holds the lock; else who holds it, in words (possibly "another process"). */
    public String heldByAnother() {
        return other;
    }

    public Path file() {
        return file;
    }

    private static String read(FileChannel ch) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(512);
        ch.read(buf, 0);
        String s = new String(buf.array(), 0, buf.position(), StandardCharsets.UTF_8).strip().replaceAll("\\p{Cntrl}", " ");
        return s.isEmpty() ? "another process" : s;
    }

    /** The node name as a file name: letters, digits, '.', '_' and '-' kept, anything else '_'. */
    static String fileName(String nodeName) {
        String n = nodeName.replaceAll("[^A-Za-z0-9._-]", "_");
        n = n.startsWith(".") ? "_" + n.substring(1) : n;
        return n.length() > 200 ? n.substring(0, 200) : n;
    }

    @Override
    public synchronized void close() {
        if (channel == null) {
            return;
        }
        HELD.remove(file, this);
        try {
            lock.release();
            channel.close();
        } catch (IOException e) {
            // the process' end drops it anyway
        }
    }
}
