package io.fabricd.collectors.files;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/** A file's owner, group and mode, from one lstat: a link is not followed. */
public record UnixAttributes(int uid, int gid, int mode, String owner, String group) {
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
        return (mode & 0170000) == 0120000;
    }

    /** The owner in words: "user bob (uid 1000)", or "uid 1000" where the name is only the number. */
    public String user() {
        return who(owner, "user", "uid ", uid);
    }

    /** The group in words, as {@link #user}. */
    public String groupInWords() {
        return who(group, "group", "gid ", gid);
    }

    private static String who(String name, String kind, String idKind, int id) {
        return name.isEmpty() || name.equals(Integer.toString(id)) ? idKind + id : kind + " " + name + " (" + idKind + id + ")";
    }
}
