package io.fabricd.collectors.kernel.live;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import io.fabricd.collectors.kernel.EthtoolStats;
import io.fabricd.collectors.kernel.HostReadException;
import io.fabricd.collectors.kernel.KernelQueries;
import io.fabricd.collectors.kernel.QpInfo;
import io.fabricd.collectors.kernel.VerbsDevice;
import io.fabricd.model.DcbState;
import io.fabricd.model.PauseParams;
import io.fabricd.natives.Errno;
import io.fabricd.natives.LibC;
import io.fabricd.natives.VerbsShim;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The live host's non-file answers, through JNA: the SIOCETHTOOL ioctl (docs/spec/host-facts.md §2.4) here, rtnetlink
 * DCB (§3.1) in {@link DcbNetlink}, the RDMA netlink QP dump (§6) in {@link QpNetlink}, verbs in
 * {@link VerbsQuery}. All of them work unprivileged in the host network namespace. Native failures become {@link HostReadException}s naming the call and errno.
 */
public final class LiveKernel implements KernelQueries {
    // linux include/uapi/linux/sockios.h, ethtool.h
    static final long SIOCETHTOOL = 0x8946;
    static final int ETHTOOL_GDRVINFO = 0x03;
    static final int ETHTOOL_GPAUSEPARAM = 0x12;
    static final int ETHTOOL_GSTRINGS = 0x1b;
    static final int ETHTOOL_GSTATS = 0x1d;
    static final int ETHTOOL_GSSET_INFO = 0x37;
    static final int ETH_SS_STATS = 1;
    static final int ETH_GSTRING_LEN = 32;
    static final int IFNAMSIZ = 16;

    private final LibC libc;
    private final VerbsQuery verbs;

    /** Queries through these bindings (loaded where fabricd is put together: {@link LibC#load}, {@link VerbsShim#load}). */
    public LiveKernel(LibC libc, VerbsShim verbs) {
        this.libc = libc;
        this.verbs = new VerbsQuery(verbs);
    }

    @Override
    public String kind() {
        return "kernel";
    }

    private static Memory ifreq(String netdev, Memory data) throws HostReadException {
        byte[] name = netdev.getBytes(StandardCharsets.UTF_8);
        if (name.length >= IFNAMSIZ) {
            throw new HostReadException("ethtool " + netdev, "EINVAL", "netdev name too long");
        }
        Memory ifr = new Memory(40);
        ifr.clear();
        ifr.write(0, name, 0, name.length);
        ifr.setPointer(16, data);
        return ifr;
    }

    private void ethtool(int fd, String netdev, Memory data) throws LastErrorException, HostReadException {
        libc.ioctl(fd, SIOCETHTOOL, ifreq(netdev, data));
    }

    /** Any socket serves the SIOCETHTOOL ioctl. */
    private int inetSocket() throws HostReadException {
        try {
            return libc.socket(LibC.AF_INET, LibC.SOCK_DGRAM, 0);
        } catch (LastErrorException e) {
            throw new HostReadException("socket(AF_INET)", Errno.describe(e.getErrorCode()));
        }
    }

    @Override
    public EthtoolStats ethtoolStats(String netdev) throws HostReadException {
        int fd = inetSocket();
        try {
            Memory drv = new Memory(196); // struct ethtool_drvinfo
            drv.clear();
            drv.setInt(0, ETHTOOL_GDRVINFO);
            ethtool(fd, netdev, drv);
            String driver = drv.getString(4, "UTF-8");
            // The stat count can change between calls (PFC toggled): query count, names and values
            // together, pass the expected count, and retry when the kernel reports another one.
            for (int attempt = 0; attempt < 3; attempt++) {
                Memory sset = new Memory(16 + 4);
                sset.clear();
                sset.setInt(0, ETHTOOL_GSSET_INFO);
                sset.setLong(8, 1L << ETH_SS_STATS);
                ethtool(fd, netdev, sset);
                if ((sset.getLong(8) & (1L << ETH_SS_STATS)) == 0) {
                    return new EthtoolStats(driver, Map.of());
                }
                int n = sset.getInt(16);
                if (n <= 0 || n > 100_000) {
                    return new EthtoolStats(driver, Map.of());
                }
                int room = n + 64; // headroom: old kernels write the current count whatever we ask
                Memory strings = new Memory(12 + (long) room * ETH_GSTRING_LEN);
                strings.clear();
                strings.setInt(0, ETHTOOL_GSTRINGS);
                strings.setInt(4, ETH_SS_STATS);
                strings.setInt(8, n);
                ethtool(fd, netdev, strings);
                Memory stats = new Memory(8 + (long) room * 8);
                stats.clear();
                stats.setInt(0, ETHTOOL_GSTATS);
                stats.setInt(4, n);
                ethtool(fd, netdev, stats);
                if (strings.getInt(8) != n || stats.getInt(4) != n) {
                    continue;
                }
                Map<String, Long> m = new TreeMap<>();
                for (int i = 0; i < n; i++) {
                    byte[] raw = strings.getByteArray(12 + (long) i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
                    int len = 0;
                    while (len < raw.length && raw[len] != 0) {
                        len++;
                    }
                    m.put(new String(raw, 0, len, StandardCharsets.UTF_8), stats.getLong(8 + (long) i * 8));
                }
                return new EthtoolStats(driver, m);
            }
            throw new HostReadException("ethtool -S " + netdev, "EAGAIN", "statistic count kept changing");
        } catch (LastErrorException e) {
            if (Errno.EOPNOTSUPP.is(e.getErrorCode())) {
                return new EthtoolStats(null, Map.of());
            }
            throw new HostReadException("ethtool -S " + netdev, Errno.describe(e.getErrorCode()));
        } finally {
            libc.close(fd);
        }
    }

    @Override
    public Optional<PauseParams> pauseParams(String netdev) throws HostReadException {
        int fd = inetSocket();
        try {
            Memory p = new Memory(16); // struct ethtool_pauseparam
            p.clear();
            p.setInt(0, ETHTOOL_GPAUSEPARAM);
            ethtool(fd, netdev, p);
            return Optional.of(new PauseParams(p.getInt(4) != 0, p.getInt(8) != 0, p.getInt(12) != 0));
        } catch (LastErrorException e) {
            if (Errno.EOPNOTSUPP.is(e.getErrorCode())) {
                return Optional.empty();
            }
            throw new HostReadException("ethtool -a " + netdev, Errno.describe(e.getErrorCode()));
        } finally {
            libc.close(fd);
        }
    }

    @Override
    public DcbState dcb(String netdev) throws HostReadException {
        return DcbNetlink.ieee(libc, netdev);
    }

    @Override
    public Optional<String> lldpNeighbors() throws HostReadException {
        return LldpCli.neighbors();
    }

    @Override
    public Optional<List<QpInfo>> queuePairs() throws HostReadException {
        return QpNetlink.dump(libc);
    }

    /** ibv_query_device/ibv_query_port through the native shim; empty when verbs cannot answer. */
    @Override
    public Optional<VerbsDevice> verbs(String device) throws HostReadException {
        return verbs.query(device);
    }
}
