package io.fabricd.natives;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.jna.LastErrorException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** The bindings against this machine's libc and, where the build made it, the verbs shim. */
class NativesTest {
    @Test
    void errnoNumbersAreTheKernelsAndUnknownOnesStayReadable() {
        assertThat(Errno.ENOSYS.number()).isEqualTo(38);
        assertThat(Errno.ENOSYS.is(38)).isTrue();
        assertThat(Errno.describe(19)).isEqualTo("ENODEV");
        assertThat(Errno.describe(95)).isEqualTo("EOPNOTSUPP");
        assertThat(Errno.describe(4242)).isEqualTo("errno 4242");
    }

    @Test
    void libcFailuresCarryTheirErrno() {
        LibC libc = LibC.load();
        assertThat(libc.unavailable()).isNull();
        // an address family the kernel does not know: EAFNOSUPPORT, named
        assertThatThrownBy(() -> libc.socket(4242, LibC.SOCK_DGRAM, 0)).isInstanceOfSatisfying(LastErrorException.class,
                e -> assertThat(Errno.describe(e.getErrorCode())).isEqualTo("EAFNOSUPPORT"));
        int fd = libc.socket(LibC.AF_INET, LibC.SOCK_DGRAM, 0);
        libc.setsockopt(fd, LibC.SOL_SOCKET, LibC.SO_RCVBUF, 1 << 16);
        libc.close(fd);
    }

    @Test
    void theVerbsShimLoadsWhereTheBuildMadeIt() {
        VerbsShim shim = VerbsShim.load();
        Assumptions.assumeTrue(Files.exists(Path.of("/usr/include/infiniband/verbs.h")), "built without libibverbs-dev: no shim");
        assertThat(shim.unavailable()).isNull();
        assertThat(shim.udUnavailable()).isNull();
        assertThat(shim.rcUnavailable()).isNull();
        // a device that does not exist: no answer, never a crash
        assertThat(shim.functions().fabricd_verbs_query("nosuchdev0", new long[1], new int[64], 8)).isNegative();
    }
}
