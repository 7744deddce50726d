package io.fabricd.model;

import java.util.ArrayList;
import java.util.List;

/**
 * What a PCI function's config space says that GPUDirect RDMA depends on (PCI Express Base
 * Specification: the PCI Express Capability's Device Capabilities and Device Control registers, the
 * ACS Extended Capability). A register is null unless the capability list that leads to it was
 * walked whole ({@link Walk.Outcome#WHOLE}): a read that stops before it, a list that is broken, a
 * function that reads all ones leave it unknown, never wrong.
 *
 * @param address              the function ("0000:17:00.0")
 * @param bytesRead            how much of the config space was read: 64 (unprivileged), 256 (a
 *                             conventional PCI function, or PCIe without extended space) or 4096;
 *                             from a snapshot, its {@code config} file's length ({@link #truncated})
 * @param maxPayload           Device Control's Max_Payload_Size in bytes
 * @param maxPayloadSupported  Device Capabilities' Max_Payload_Size Supported in bytes
 * @param maxReadRequest       Device Control's Max_Read_Request_Size in bytes
 * @param relaxedOrdering      Device Control's Enable Relaxed Ordering
 * @param acs                  the ACS capability and control registers; null when the function has no
 *                             ACS capability (known only when {@code extendedCapabilities} is whole)
 *                             or it could not be read
 * @param capabilities         how the walk of the capability list (from 0x34, in the first 256 bytes) ended:
 *                             the PCI Express capability's registers come from it
 * @param extendedCapabilities how the walk of the extended capability list (from 0x100) ended: ACS comes from it
 */
public record PcieConfig(String address, int bytesRead, Integer maxPayload, Integer maxPayloadSupported, Integer maxReadRequest,
                         Boolean relaxedOrdering, Acs acs, Walk capabilities, Walk extendedCapabilities) {

    /**
     * How the walk of one capability list ended.
     *
     * @param problem null when the walk is {@link Outcome#WHOLE}; else what stopped it, in words, with the offsets
     *                ("the list loops: 0x70 points back to 0x40")
     */
    public record Walk(Outcome outcome, String problem) {
        public static final Walk WHOLE = new Walk(Outcome.WHOLE, null);

        /** The ways a walk ends. */
        public enum Outcome {
            /** To its end, inside the bytes read: a capability it did not meet is not there. */
            WHOLE,
            /** It needed bytes past those read (a reader without CAP_SYS_ADMIN gets 64; a space without its extended part 256). */
            CUT,
            /** The list is broken (a loop, a pointer into the header or past the space, an ID out of range, a capability too long for its space): nothing is decoded from it. */
            MALFORMED,
            /** The function reads all ones: it no longer answers, and nothing in it is a register. */
            GONE
        }

        public boolean whole() {
            return outcome == Outcome.WHOLE;
        }
    }

    /**
     * The Vendor and Device ID read 0xffff: the function no longer answers (it fell off the bus, or
     * its link is down); every register is then null.
     */
    public boolean allOnes() {
        return capabilities.outcome() == Walk.Outcome.GONE;
    }

    /**
     * The read stopped before the end of the conventional config space (256 bytes), where the
     * capability list lives: the kernel gives a reader without CAP_SYS_ADMIN the first 64 bytes of
     * {@code config} (128 of a CardBus bridge's), and a snapshot taken by one holds that much. Not
     * for a function that reads all ones: that one no longer answers (it fell off the bus), which is
     * another matter ({@link #allOnes}).
     */
    public boolean truncated() {
        return !allOnes() && bytesRead < 256;
    }

    /** The ACS Capability and Control registers (16 bits each); the bits are the same in both. */
    public record Acs(int capability, int control) {
        public static final int REQUEST_REDIRECT = 1 << 2;
        public static final int COMPLETION_REDIRECT = 1 << 3;
        public static final int EGRESS_CONTROL = 1 << 5;

        /** The controls by metric label and lspci's name, in bit order. */
        public static final List<String[]> CONTROLS = List.of(
                new String[] {"source_validation", "SrcValid"}, new String[] {"translation_blocking", "TransBlk"},
                new String[] {"request_redirect", "ReqRedir"}, new String[] {"completion_redirect", "CmpltRedir"},
                new String[] {"upstream_forwarding", "UpstreamFwd"}, new String[] {"egress_control", "EgressCtrl"},
                new String[] {"direct_translated", "DirectTrans"});

        /**
         * True when peer-to-peer requests or completions through this port are sent up to the root
         * complex instead of across (P2P Request Redirect, Completion Redirect) or may be blocked
         * (Egress Control): what breaks GPUDirect RDMA between a GPU and a NIC below it.
         */
        public boolean redirects() {
            return (control & (REQUEST_REDIRECT | COMPLETION_REDIRECT | EGRESS_CONTROL)) != 0;
        }

        public boolean enabled(int bit) {
            return (control & bit) != 0;
        }

        /** As lspci -vvv prints ACSCtl: "SrcValid+ TransBlk- ReqRedir+ ...". */
        public String describeControl() {
            List<String> out = new ArrayList<>();
            for (int i = 0; i < CONTROLS.size(); i++) {
                out.add(CONTROLS.get(i)[1] + ((control & (1 << i)) != 0 ? "+" : "-"));
            }
            return String.join(" ", out);
        }
    }
}
