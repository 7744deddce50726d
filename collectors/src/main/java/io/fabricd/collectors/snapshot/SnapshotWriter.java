package io.fabricd.collectors.snapshot;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabricd.collectors.CollectorConfig;
import io.fabricd.collectors.kernel.HostReadException;
import io.fabricd.collectors.kernel.QpInfo;
import io.fabricd.collectors.kernel.VerbsDevice;
import io.fabricd.collectors.run.HostCollection;
import io.fabricd.collectors.source.HostSource;
import io.fabricd.collectors.source.SnapshotHostSource;
import io.fabricd.model.DcbState;
import io.fabricd.model.HostModel;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * {@code fabricd snapshot}: runs one collection through a {@link RecordingHostSource} and writes
 * what it read in the host-snapshot.md format: files under their resolved paths, every symlink on
 * the way as a relative link, failed reads in {@code fabricd/unreadable.txt}, the kernel's answers
 * as side-cars, and the manifest. {@code metrics} on the result equals {@code metrics} on the host.
 * What cannot be copied: a link that leads out of the source snapshot or loops (the copy lacks it).
 */
public final class SnapshotWriter {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private SnapshotWriter() {
    }

    /** What was written. */
    public record Result(HostModel model, int files, int links, int unreadable) {
    }

    /**
     * Writes the snapshot into {@code out} (new, or an empty folder of this user) through a private
     * folder renamed into place at the end ({@link SnapshotTarget}).
     *
     * @throws IllegalArgumentException with one line for a refused target or a failed write (full
     *                                  disk, permissions); nothing is left under {@code out} then
     */
    public static Result write(HostSource source, CollectorConfig config, Path out, String version) {
        try (SnapshotTarget target = SnapshotTarget.open(out)) {
            Result r;
            try {
                r = writeInto(source, config, target.staging(), version);
            } catch (IOException e) {
                throw new IllegalArgumentException("--out " + out + ": cannot write the snapshot: " + SnapshotTarget.reason(e));
            }
            target.commit();
            return r;
        }
    }

    private static Result writeInto(HostSource source, CollectorConfig config, Path out, String version) throws IOException {
        RecordingHostSource rec = new RecordingHostSource(source);
        HostModel model = HostCollection.standard(config).collect(rec);
        TreeWriter w = new TreeWriter(rec, out);
        Map<String, String> unreadable = new TreeMap<>();
        for (Map.Entry<String, RecordingHostSource.Read> e : new TreeMap<>(rec.reads).entrySet()) {
            String path = e.getKey();
            if (path.equals(SnapshotHostSource.MANIFEST) || path.equals(SnapshotHostSource.UNREADABLE)) {
                continue;
            }
            RecordingHostSource.Read r = e.getValue();
            if ("ENOENT".equals(r.errno())) {
                continue; // absent on the host, absent in the snapshot
            }
            String real = w.materialize(path);
            if (real == null) {
                continue;
            }
            if (r.errno() != null) {
                unreadable.put(real, r.errno());
            } else {
                w.file(real, r.text(), r.binary() ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8);
            }
        }
        for (String dir : new TreeMap<>(rec.listings).keySet()) {
            String real = w.materialize(dir);
            if (real != null) {
                Files.createDirectories(out.resolve(real));
            }
        }
        Set<String> extra = new TreeSet<>(rec.touched);
        rec.listings.forEach((dir, names) -> names.forEach(n -> extra.add(dir + "/" + n))); // listed entries exist
        for (String path : extra) {
            if (rec.reads.containsKey(path) || rec.listings.containsKey(path)) {
                continue;
            }
            String real = w.materialize(path);
            if (real == null || Files.exists(out.resolve(real), LinkOption.NOFOLLOW_LINKS)) {
                continue;
            }
            if (source.isDirectory(path)) {
                Files.createDirectories(out.resolve(real));
            } else {
                try {
                    w.file(real, source.read(path));
                } catch (HostReadException e) {
                    if (!e.isMissing()) {
                        unreadable.put(real, e.errno());
                    }
                }
            }
        }
        sideCars(rec, w);
        if (!unreadable.isEmpty()) {
            StringBuilder sb = new StringBuilder("# paths that exist on the host but whose read failed (realpath errno)\n");
            unreadable.forEach((p, errno) -> sb.append(p).append(' ').append(errno).append('\n'));
            w.file(SnapshotHostSource.UNREADABLE, sb.toString());
        }
        ObjectNode m = JSON.createObjectNode();
        m.put("format", 1);
        m.put("hostname", model.hostname());
        String kernel = source.manifest().map(x -> x.kernel()).orElse(null);
        if (kernel == null) {
            try {
                kernel = source.readLine("proc/sys/kernel/osrelease").strip();
            } catch (HostReadException e) {
                kernel = null;
            }
        }
        m.put("kernel", kernel);
        m.put("captured_at", Instant.now().toString());
        m.put("fabricd_version", version);
        m.set("labels", JSON.valueToTree(model.labels()));
        if (model.facts() != null) {
            ObjectNode h = m.putObject("host");
            if (model.facts().memoryBytes() != null) {
                h.put("memory_bytes", model.facts().memoryBytes());
            }
            h.set("numa_cpus", JSON.valueToTree(model.facts().numaCpus()));
            if (model.facts().bootTime() != null) {
                h.put("boot_time", model.facts().bootTime());
            }
            if (model.facts().kernel() != null) {
                m.put("kernel", model.facts().kernel());
            }
        }
        w.file(SnapshotHostSource.MANIFEST, JSON.writeValueAsString(m) + "\n");
        return new Result(model, w.files, w.links, unreadable.size());
    }

    /**
     * Removes a snapshot folder and everything in it, best effort: links are removed, never
     * followed (a snapshot's links point into the host's tree shape, not at files to delete).
     */
    public static void deleteTree(Path dir) {
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path f, BasicFileAttributes a) throws IOException {
                    Files.deleteIfExists(f);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                    Files.deleteIfExists(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            // a leftover folder; whatever brought the caller here matters more
        }
    }

    /** Live answers as the side-cars of host-snapshot.md (a snapshot's side-cars were copied as files). */
    private static void sideCars(RecordingHostSource rec, TreeWriter w) throws IOException {
        for (var e : new TreeMap<>(rec.ethtool).entrySet()) {
            if (e.getValue().stats().isEmpty()) {
                continue;
            }
            StringBuilder sb = new StringBuilder("NIC statistics:\n");
            e.getValue().stats().forEach((k, v) -> sb.append("     ").append(k).append(": ").append(Long.toUnsignedString(v)).append('\n'));
            w.file("fabricd/ethtool/" + e.getKey() + ".txt", sb.toString());
        }
        for (var e : new TreeMap<>(rec.pause).entrySet()) {
            w.file("fabricd/ethtool/" + e.getKey() + ".pause.json", JSON.writeValueAsString(e.getValue()) + "\n");
        }
        for (var e : new TreeMap<>(rec.dcb).entrySet()) {
            DcbState d = e.getValue();
            ObjectNode n = JSON.createObjectNode();
            if (!d.supported()) {
                // said, not left out: an absent side-car means the state was not captured
                n.put("supported", false);
                w.file("fabricd/dcb/" + e.getKey() + ".json", JSON.writeValueAsString(n) + "\n");
                continue;
            }
            n.set("dcbx", JSON.valueToTree(d.dcbx()));
            ObjectNode pfc = n.putObject("pfc");
            pfc.put("cap", d.pfcCap());
            pfc.set("enabled", JSON.valueToTree(d.pfcEnabled()));
            pfc.put("delay", d.delay());
            pfc.set("requests", JSON.valueToTree(d.requests()));
            pfc.set("indications", JSON.valueToTree(d.indications()));
            ArrayNode app = n.putArray("app");
            d.app().forEach(a -> app.addObject().put("selector", a.selector()).put("protocol", a.protocol()).put("priority", a.priority()));
            w.file("fabricd/dcb/" + e.getKey() + ".json", JSON.writeValueAsString(n) + "\n");
        }
        for (var e : new TreeMap<>(rec.verbs).entrySet()) {
            VerbsDevice v = e.getValue();
            ObjectNode n = JSON.createObjectNode();
            if (v.maxQp() != null) {
                n.put("max_qp", v.maxQp());
            }
            ObjectNode ports = n.putObject("ports");
            new TreeMap<>(v.ports()).forEach((p, a) -> {
                ObjectNode o = ports.putObject(p.toString());
                o.put("state", a.state());
                o.put("max_mtu", a.maxMtu());
                o.put("active_mtu", a.activeMtu());
                o.put("link_layer", a.linkLayer());
                o.put("gid_tbl_len", a.gidTblLen());
                o.put("active_width", a.activeWidth());
                o.put("active_speed", a.activeSpeed());
            });
            w.file("fabricd/verbs/" + e.getKey() + ".json", JSON.writeValueAsString(n) + "\n");
        }
        if (rec.qps != null) {
            ArrayNode arr = JSON.createArrayNode();
            for (QpInfo q : rec.qps) {
                ObjectNode o = arr.addObject();
                o.put("ifname", q.device());
                o.put("port", q.port());
                o.put("lqpn", q.lqpn());
                o.put("type", q.type());
                o.put("state", q.state());
                if (q.pid() != null) {
                    o.put("pid", q.pid());
                }
                o.put("comm", q.comm());
            }
            w.file("fabricd/rdma/qp.json", JSON.writeValueAsString(arr) + "\n");
        }
        if (rec.lldp != null) {
            w.file("fabricd/lldp/neighbors.json", rec.lldp); // verbatim, as lldpcli printed it: fixtures replay it
        }
    }
}
