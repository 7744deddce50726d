package io.fabricd.collectors.model;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The RDMA transport's failure counters of a port's {@code hw_counters/}, by what they mean rather
 * than by driver name (names from linux drivers/infiniband/hw/mlx5/counters.c,
 * sw/rxe/rxe_hw_counters.c, hw/bnxt_re/hw_counters.c, hw/irdma/verbs.c; facts §1.6-§1.7).
 */
public final class TransportCounters {
    private TransportCounters() {
    }

    /** A kind of transport failure and what it tells an operator. */
    public enum Type {
        /** A requester gave up after its retry count: the QP moved to the error state (IBV_WC_RETRY_EXC_ERR). */
        RETRIES_EXCEEDED("retries_exceeded"),
        /** A requester gave up after its RNR retry count (IBV_WC_RNR_RETRY_EXC_ERR): the receiver posts too few receives. */
        RNR_RETRIES_EXCEEDED("rnr_retries_exceeded"),
        /** The requester's ACK timer expired and it retransmitted: packets lost in the fabric. */
        ACK_TIMEOUT("ack_timeout"),
        /** Receiver-not-ready NAKs received: the peer had no receive posted (application flow control). */
        RNR_NAK("rnr_nak"),
        /** Sequence-error NAKs received: the responder saw a gap, a packet was lost. */
        SEQUENCE_ERROR("sequence_error"),
        /** READ/ATOMIC responses with a later PSN than expected: a response was lost. */
        IMPLIED_NAK("implied_nak"),
        /** Packets received out of sequence (dropped in the fabric, or reordered). */
        OUT_OF_SEQUENCE("out_of_sequence"),
        /** Requests received twice: the peer retransmitted. */
        DUPLICATE_REQUEST("duplicate_request"),
        /** Work completions with an error status. */
        CQE_ERROR("cqe_error"),
        /** Remote access errors: a bad rkey or permissions, usually an application bug. */
        REMOTE_ACCESS("remote_access"),
        /** Remote invalid request NAKs: the peer refused an operation. */
        REMOTE_INVALID_REQUEST("remote_invalid_request"),
        /** Responses the requester never got (bnxt_re). */
        MISSING_RESPONSE("missing_response"),
        /** Segments the iWARP TCP layer retransmitted (irdma). */
        RETRANSMITTED_SEGMENTS("retransmitted_segments");

        private final String label;

        Type(String label) {
            this.label = label;
        }

        /** The {@code type} label and configuration key ({@code retries_exceeded}, ...). */
        public String label() {
            return label;
        }
    }

    private static final Map<String, Type> BY_NAME = new LinkedHashMap<>();

    private static void names(Type t, String... names) {
        for (String n : names) {
            BY_NAME.put(n, t);
        }
    }

    static {
        // mlx5, rxe, bnxt_re, irdma
        names(Type.RETRIES_EXCEEDED, "req_transport_retries_exceeded", "retry_exceeded_err", "max_retry_exceeded");
        names(Type.RNR_RETRIES_EXCEEDED, "req_rnr_retries_exceeded", "retry_rnr_exceeded_err");
        names(Type.ACK_TIMEOUT, "local_ack_timeout_err", "to_retransmits", "completer_retry_err");
        names(Type.RNR_NAK, "rnr_nak_retry_err", "rcvd_rnr_err", "rnr_naks_rcvd");
        names(Type.SEQUENCE_ERROR, "packet_seq_err", "rcvd_seq_err", "seq_err_naks_rcvd");
        names(Type.IMPLIED_NAK, "implied_nak_seq_err");
        names(Type.OUT_OF_SEQUENCE, "out_of_sequence", "out_of_seq_request", "oos_drop_count");
        names(Type.DUPLICATE_REQUEST, "duplicate_request", "dup_req");
        names(Type.CQE_ERROR, "req_cqe_error", "resp_cqe_error");
        names(Type.REMOTE_ACCESS, "req_remote_access_errors", "resp_remote_access_errors", "remote_access_err");
        names(Type.REMOTE_INVALID_REQUEST, "req_remote_invalid_request", "remote_invalid_req_err");
        names(Type.MISSING_RESPONSE, "missing_resp");
        names(Type.RETRANSMITTED_SEGMENTS, "tcpRetransSegs");
    }

    /** The type of a {@code hw_counters/} name, or null when it is not a transport failure counter. */
    public static Type type(String counter) {
        return BY_NAME.get(counter);
    }

    /** Every known counter name and its type (for docs and tests). */
    public static Map<String, Type> names() {
        return Collections.unmodifiableMap(BY_NAME);
    }
}
