package io.fabricd.collectors.snapshot;

import io.fabricd.collectors.kernel.EthtoolStats;
import io.fabricd.collectors.kernel.HostReadException;
import io.fabricd.collectors.kernel.KernelQueries;
import io.fabricd.collectors.kernel.QpInfo;
import io.fabricd.collectors.kernel.VerbsDevice;
import io.fabricd.collectors.source.ForwardingHostSource;
import io.fabricd.collectors.source.HostSource;
import io.fabricd.model.DcbState;
import io.fabricd.model.PauseParams;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Remembers everything a collection asked of a host — file reads (text or errno), listings, and the
 * live kernel's answers — so {@link SnapshotWriter} writes exactly what fabricd reads. On a snapshot
 * source the side-cars are files and are recorded as such.
 */
public final class RecordingHostSource extends ForwardingHostSource {
    /** A file read: its text (a binary file's bytes, one ISO-8859-1 char each), or the errno of the failure. */
    record Read(String text, String errno, boolean binary) {
        Read(String text, String errno) {
            this(text, errno, false);
        }
    }

    final Map<String, Read> reads = new ConcurrentHashMap<>();
    final Map<String, List<String>> listings = new ConcurrentHashMap<>();
    /** Paths whose existence or resolution a collector relied on without reading them. */
    final Set<String> touched = ConcurrentHashMap.newKeySet();
    final Map<String, EthtoolStats> ethtool = new ConcurrentHashMap<>();
    final Map<String, PauseParams> pause = new ConcurrentHashMap<>();
    final Map<String, DcbState> dcb = new ConcurrentHashMap<>();
    final Map<String, VerbsDevice> verbs = new ConcurrentHashMap<>();
    volatile List<QpInfo> qps;
    volatile String lldp;
    private final KernelQueries kernel;

    public RecordingHostSource(HostSource delegate) {
        super(delegate);
        this.kernel = delegate.isSnapshot() ? super.kernel() : new Recording(delegate.kernel());
    }

    @Override
    public String read(String path) throws HostReadException {
        try {
            String t = super.read(path);
            reads.put(path, new Read(t, null));
            return t;
        } catch (HostReadException e) {
            reads.put(path, new Read(null, e.errno()));
            throw e;
        }
    }

    @Override
    public byte[] readBytes(String path) throws HostReadException {
        try {
            byte[] b = super.readBytes(path);
            reads.put(path, new Read(new String(b, StandardCharsets.ISO_8859_1), null, true));
            return b;
        } catch (HostReadException e) {
            reads.put(path, new Read(null, e.errno()));
            throw e;
        }
    }

    @Override
    public List<String> list(String path) throws HostReadException {
        try {
            List<String> l = super.list(path);
            listings.put(path, l);
            return l;
        } catch (HostReadException e) {
            reads.put(path, new Read(null, e.errno())); // an unreadable folder: recorded like a file
            throw e;
        }
    }

    @Override
    public boolean exists(String path) {
        boolean e = super.exists(path);
        if (e) {
            touched.add(path);
        }
        return e;
    }

    @Override
    public String realPath(String path) throws HostReadException {
        String r = super.realPath(path);
        touched.add(path);
        return r;
    }

    @Override
    public KernelQueries kernel() {
        return kernel;
    }

    private final class Recording implements KernelQueries {
        private final KernelQueries k;

        Recording(KernelQueries k) {
            this.k = k;
        }

        @Override
        public EthtoolStats ethtoolStats(String netdev) throws HostReadException {
            EthtoolStats s = k.ethtoolStats(netdev);
            ethtool.put(netdev, s);
            return s;
        }

        @Override
        public Optional<PauseParams> pauseParams(String netdev) throws HostReadException {
            Optional<PauseParams> p = k.pauseParams(netdev);
            p.ifPresent(x -> pause.put(netdev, x));
            return p;
        }

        @Override
        public DcbState dcb(String netdev) throws HostReadException {
            DcbState d = k.dcb(netdev);
            dcb.put(netdev, d);
            return d;
        }

        @Override
        public Optional<VerbsDevice> verbs(String device) throws HostReadException {
            Optional<VerbsDevice> v = k.verbs(device);
            v.ifPresent(x -> verbs.put(device, x));
            return v;
        }

        @Override
        public Optional<String> lldpNeighbors() throws HostReadException {
            Optional<String> l = k.lldpNeighbors();
            l.ifPresent(x -> lldp = x);
            return l;
        }

        @Override
        public Optional<List<QpInfo>> queuePairs() throws HostReadException {
            Optional<List<QpInfo>> q = k.queuePairs();
            q.ifPresent(x -> qps = x);
            return q;
        }

        @Override
        public String kind() {
            return k.kind();
        }
    }
}
