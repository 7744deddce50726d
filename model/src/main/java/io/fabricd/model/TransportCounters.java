package io.fabricd.model;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The RDMA transport's failure counters of a port's {@code hw_counters/}, by what they mean rather
 * than by driver name (names from linux drivers/infiniband/hw/mlx5/counters.c,
 * sw/rxe/rxe_hw_counters.c, hw/bnxt_re/hw_counters.c, hw/irdma/verbs.c, hw/mlx4/main.c's diag
 * counters; docs/spec/host-facts.md §1.6-§1.7). Every other {@code hw_counters/} name of the drivers fabricd knows is
 * traffic, congestion control or the control path ({@link #OTHER}); a test holds every name in the
 * fixtures to one of the two lists.
 */
public final class TransportCounters {
    private TransportCounters() {
    }

    /** A kind of transport failure and what it tells an operator. */
    public enum Type {
        /** A requester gave up after its retry count: the QP moved to the error state (IBV_WC_RETRY_EXC_ERR). */
        RETRIES_EXCEEDED,
        /** A requester gave up after its RNR retry count (IBV_WC_RNR_RETRY_EXC_ERR): the receiver posts too few receives. */
        RNR_RETRIES_EXCEEDED,
        /** The requester's ACK timer expired and it retransmitted: packets lost in the fabric. */
        ACK_TIMEOUT,
        /** Receiver-not-ready NAKs received: the peer had no receive posted (application flow control). */
        RNR_NAK,
        /** Sequence-error NAKs received: the responder saw a gap, a packet was lost. */
        SEQUENCE_ERROR,
        /** READ/ATOMIC responses with a later PSN than expected: a response was lost. */
        IMPLIED_NAK,
        /** Packets received out of sequence (dropped in the fabric, or reordered). */
        OUT_OF_SEQUENCE,
        /** Requests received twice: the peer retransmitted. */
        DUPLICATE_REQUEST,
        /** Work completions with an error status. */
        CQE_ERROR,
        /** Remote access errors: a bad rkey or permissions, usually an application bug. */
        REMOTE_ACCESS,
        /** Remote invalid request NAKs: the peer refused an operation. */
        REMOTE_INVALID_REQUEST,
        /** Responses the requester never got (bnxt_re). */
        MISSING_RESPONSE,
        /** The peer failed an operation or answered with a bad response (mlx4 roe/bre, bnxt_re). */
        REMOTE_OPERATION,
        /** Local length, protection or QP operation errors, CQ overflows: the application or the driver (mlx4 lle/lpe/lqpoe). */
        LOCAL_ERROR,
        /** Work requests flushed because their QP entered the error state: the consequence of another failure or a job ending. */
        FLUSHED,
        /** Packets the RDMA engine discarded on receive (ICRC errors, truncated or malformed packets, no buffer). */
        DISCARDS,
        /** Segments the iWARP TCP layer retransmitted (irdma). */
        RETRANSMITTED_SEGMENTS;

        /** The {@code type} label and configuration key ({@code retries_exceeded}, ...): the name in lower case. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private static final Map<String, Type> BY_NAME = new LinkedHashMap<>();

    private static void names(Type t, String... names) {
        for (String n : names) {
            BY_NAME.put(n, t);
        }
    }

    static {
        // mlx5, rxe, bnxt_re, irdma, efa; mlx4's diag counters (rq_/sq_num_*: receive and send queue)
        names(Type.RETRIES_EXCEEDED, "req_transport_retries_exceeded", "retry_exceeded_err", "max_retry_exceeded", "sq_num_tree");
        names(Type.RNR_RETRIES_EXCEEDED, "req_rnr_retries_exceeded", "retry_rnr_exceeded_err", "sq_num_rree");
        names(Type.ACK_TIMEOUT, "local_ack_timeout_err", "to_retransmits", "completer_retry_err", "roce_adp_retrans",
                "roce_adp_retrans_to", "sq_num_to");
        names(Type.RNR_NAK, "rnr_nak_retry_err", "rcvd_rnr_err", "rnr_naks_rcvd", "send_rnr_err", "out_of_buffer", "rq_num_rnr",
                "sq_num_rnr");
        names(Type.SEQUENCE_ERROR, "packet_seq_err", "rcvd_seq_err", "seq_err_naks_rcvd");
        names(Type.IMPLIED_NAK, "implied_nak_seq_err");
        names(Type.OUT_OF_SEQUENCE, "out_of_sequence", "out_of_seq_request", "oos_drop_count", "rq_num_oos", "sq_num_oos");
        names(Type.DUPLICATE_REQUEST, "duplicate_request", "dup_req", "rq_num_dup");
        names(Type.CQE_ERROR, "req_cqe_error", "resp_cqe_error");
        names(Type.REMOTE_ACCESS, "req_remote_access_errors", "resp_remote_access_errors", "remote_access_err", "rq_num_rae",
                "sq_num_rae", "res_rx_invalid_rkey", "res_tx_invalid_rkey", "res_rx_no_perm", "res_tx_no_perm", "res_rx_domain_err",
                "res_tx_domain_err", "res_rx_range_err", "res_tx_range_err", "res_invalid_dup_rkey");
        names(Type.REMOTE_INVALID_REQUEST, "req_remote_invalid_request", "remote_invalid_req_err", "rq_num_rire", "sq_num_rire",
                "res_opcode_err", "res_unsup_opcode", "res_unaligned_atomic", "res_length_mismatch", "res_exceeds_wqe",
                "res_exceed_max", "res_rem_inv_err");
        names(Type.MISSING_RESPONSE, "missing_resp");
        names(Type.RETRANSMITTED_SEGMENTS, "tcpRetransSegs");
        names(Type.REMOTE_OPERATION, "sq_num_roe", "sq_num_bre", "remote_op_err", "bad_resp_err");
        names(Type.LOCAL_ERROR, "rq_num_lle", "sq_num_lle", "rq_num_lpe", "sq_num_lpe", "rq_num_lqpoe", "sq_num_lqpoe", "sq_num_mwbe",
                "resp_local_length_error", "local_qp_op_err", "local_protection_err", "mem_mgmt_op_err", "send_err", "num_cqovf",
                "unrecoverable_err", "res_wqe_format_err", "res_irrq_oflow", "res_mem_err", "res_srq_err", "res_cmp_err",
                "res_cq_load_err", "res_srq_load_err", "res_tx_pci_err", "res_rx_pci_err");
        names(Type.FLUSHED, "req_cqe_flush_error", "resp_cqe_flush_error", "rq_num_wrfe", "sq_num_wrfe");
        names(Type.DISCARDS, "rx_icrc_encapsulated", "rx_roce_discards", "rx_roce_errors", "rx_drops", "rq_num_udsdprd",
                "ip4InDiscards", "ip6InDiscards", "ip4InTruncatedPkts", "ip6InTruncatedPkts", "tcpInProtoErrors", "tcpInOptErrors",
                "rxVlanErrors");
    }

    /**
     * The {@code hw_counters/} names that are not transport failures: traffic (packets, bytes, work
     * requests, requests received), congestion control (ECN marks, CNPs, slow restarts: congestion,
     * never an error), resources in use, and the control path (commands, mailbox, object creation
     * and their failures, which are the application's or the driver's, not the fabric's).
     */
    public static final Set<String> OTHER = Set.of(
            "lifespan", "rx_write_requests", "rx_read_requests", "rx_atomic_requests", "rx_dct_connect",
            "np_cnp_sent", "np_ecn_marked_roce_packets", "rp_cnp_handled", "rp_cnp_ignored", "roce_slow_restart",
            "roce_slow_restart_cnps", "roce_slow_restart_trans", "cnpSent", "cnpIgnored", "cnpHandled", "RxECNMrkd",
            "sent_pkts", "rcvd_pkts", "rdma_sends", "rdma_recvs", "ack_deferred", "link_downed", "tx_pkts", "tx_bytes", "rx_pkts",
            "rx_bytes", "recoverable_errors", "send_wrs", "send_bytes", "recv_wrs", "recv_bytes", "rdma_read_wrs", "rdma_read_bytes",
            "rdma_read_resp_bytes", "rdma_read_wr_err", "rx_ud_pkt", "rx_uc_pkt", "rx_rc_pkt", "TxUDP", "RxUDP",
            "tcpInSegs", "tcpOutSegs", "iwRdmaInv", "iwRdmaBnd", "iwOutRdmaWrites", "iwOutRdmaSends", "iwOutRdmaReads",
            "iwInRdmaWrites", "iwInRdmaSends", "iwInRdmaReads", "ip4InPkts", "ip4InOctets", "ip4InMcastPkts", "ip4InMcastOctets",
            "ip4InReasmRqd", "ip4OutPkts", "ip4OutOctets", "ip4OutMcastPkts", "ip4OutMcastOctets", "ip4OutSegRqd", "ip4OutNoRoutes",
            "ip6InPkts", "ip6InOctets", "ip6InMcastPkts", "ip6InMcastOctets", "ip6InReasmRqd", "ip6OutPkts", "ip6OutOctets",
            "ip6OutMcastPkts", "ip6OutMcastOctets", "ip6OutSegRqd", "ip6OutNoRoutes",
            "active_qps", "active_srqs", "active_cqs", "active_mrs", "active_mws", "active_pds", "active_ahs",
            "submitted_cmds", "completed_cmds", "cmds", "cmds_err", "no_completion_cmds", "aeqe", "ceqe", "mbx_event", "posted_mbx",
            "polled_mbx", "keep_alive_rcvd", "alloc_pd_err", "alloc_ucontext_err", "ah_create_err", "create_ah_err", "cq_create_err",
            "create_cq_err", "qp_create_err", "create_qp_err", "qp_modify_err", "srq_create_err", "reg_mr_err", "mr_reg_err",
            "mr_rereg_err", "mmap_err", "uctx_alloc_err", "xrcd_alloc_err");

    /** The type of a {@code hw_counters/} name, or null when it is not a transport failure counter. */
    public static Type type(String counter) {
        return BY_NAME.get(counter);
    }

    /** Every known counter name and its type (for docs and tests). */
    public static Map<String, Type> names() {
        return Collections.unmodifiableMap(BY_NAME);
    }
}
