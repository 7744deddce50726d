package io.fabricd.collectors.files;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/**
 * A file's owner, group and mode as one lstat gives them (a link is not followed), so that each
 * check reads one consistent answer rather than a map of names to objects.
 */
public record UnixAttributes(int uid, int gid, int mode, String owner, String group) {
    private static final int TYPE = 0170000;
    private static final int LINK = 0120000;

    /** The attributes of {@code p}; null where the file system has no Unix owners. */
    public static UnixAttributes of(Path p) throws IOException {
        Map<String, Object> a;
        try {
            a = Files.readAttributes(p, "unix:uid,gid,mode,owner,group", LinkOption.NOFOLLOW_LINKS);
        } catch (UnsupportedOperationException e) {
            return null;
        }
        return new UnixAttributes((Integer) a.get("uid"), (Integer) a.get("gid"), (Integer) a.get("mode"),
                Objects.toString(a.get("owner"), ""), Objects.toString(a.get("group"), ""));
    }

    public boolean isLink() {
        return (mode & TYPE) == LINK;
    }

    /** The owner in words: "user alice (uid 1001)", or "uid 1001" where it has no name. */
    public String user() {
        return FolderChain.who(owner, "user", uid);
    }

    /** The group in words, as {@link #user}. */
    public String groupInWords() {
        return FolderChain.who(group, "group", gid);
    }
}
