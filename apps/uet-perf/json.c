/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * uet-perf's --json documents, built with jansson: one object per test
 * (perf_json_report) and the one-line documents of batch runs and of the
 * two roles. Keys keep the order they had when these were printf
 * formats; --fabric builds its own (fabric_report.c).
 */

#include <errno.h>
#include <stdio.h>

#include <jansson.h>

#include "perf.h"

#define J(v) ((json_int_t)(v))

static json_t *
json_side(const struct test_ulp_result *s)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, "
			 "s:I}",
			 "msgs_sent", J(s->msgs_sent),
			 "done_ok", J(s->pkts_done_ok),
			 "done_err", J(s->pkts_done_err),
			 "rx_pkts", J(s->rx_pkts), "rx_msgs", J(s->rx_msgs),
			 "rx_bytes", J(s->rx_bytes), "rx_dup", J(s->rx_dup),
			 "rx_bad", J(s->rx_bad),
			 "rx_order_err", J(s->rx_order_err),
			 "rx_lost", J(s->rx_lost), "pongs", J(s->pongs));
}

static json_t *
json_ses_side(const struct perf_ses_side *x)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, "
			 "s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, "
			 "s:I, s:I, s:I}",
			 "wr_submitted", J(x->wr_submitted),
			 "wr_eagain", J(x->wr_eagain), "msg_ok", J(x->msg_ok),
			 "msg_err", J(x->msg_err), "frag_tx", J(x->frag_tx),
			 "frag_rebuilt", J(x->frag_rebuilt),
			 "rx_bad", J(x->rx_bad),
			 "cq_overflow", J(x->cq_overflow),
			 "unexp_drop", J(x->unexp_drop),
			 "ret_tx", J(x->ret_tx), "ret_rx", J(x->ret_rx),
			 "rdv_tx", J(x->rdv_tx), "sqe", J(x->sqe),
			 "sqe_held", J(x->sqe_held),
			 "sqe_rejected", J(x->sqe_rejected), "rqe", J(x->rqe),
			 "rqe_rejected", J(x->rqe_rejected), "cqe", J(x->cqe),
			 "cq_wait", J(x->cq_wait), "tx_ref", J(x->tx_ref),
			 "msg_tx_wait", J(x->msg_tx_wait),
			 "rx_split", J(x->rx_split), "rx_flat", J(x->rx_flat));
}

/* "op", "tagged" and "ses": completion errors and both SES's counters. */
static void
json_ses(json_t *o, const struct perf_ses *x)
{
	json_object_set_new(o, "op", json_string(perf_op_name(x->op)));
	json_object_set_new(o, "tagged", json_boolean(x->tagged));
	json_object_set_new(o, "ses", json_pack(
		"{s:I, s:I, s:I, s:o, s:o}",
		"completion_errors", J(x->drv.cqe_err),
		"unknown_completions", J(x->drv.cqe_bad),
		"post_failures", J(x->drv.post_fail),
		"initiator", json_ses_side(&x->ini),
		"target", json_ses_side(&x->tgt)));
}

static json_t *
json_flows(const struct perf_report *r)
{
	json_t *a = json_array();

	for (unsigned int i = 0; a != NULL && i < r->nb_flows; i++) {
		const struct perf_flow *f = &r->flow[i];

		json_array_append_new(a, json_pack(
			"{s:i, s:I, s:I, s:I, s:I, s:f, s:f}", "sender", (int)i,
			"msgs_sent", J(f->msgs_sent), "msgs", J(f->msgs),
			"bytes", J(f->bytes), "lost_pkts", J(f->lost),
			"seconds", f->seconds, "gbytes_per_s",
			f->gbytes_per_s));
	}
	return a;
}

/* [tss] counters of both sides: sealed, opened, drops by reason */
static json_t *
json_tss(const struct perf_report *r)
{
	json_t *drop = json_object();

	for (unsigned int i = 0; drop != NULL && i < UET_ENGINE_TSS_DROPS;
	     i++)
		json_object_set_new(drop, uet_engine_tss_drop_name(i),
				    json_integer(J(r->wire.tss_drop[i])));
	return json_pack("{s:I, s:I, s:I, s:o}", "sealed",
			 J(r->wire.tss_sealed), "opened", J(r->wire.tss_opened),
			 "keys", J(r->wire.tss_keys), "drop", drop);
}

static json_t *
json_wire(const struct perf_report *r)
{
	json_t *faults = json_object();

	for (unsigned int k = 0; faults != NULL &&
	     k < UET_CONFIG_FAULT_KINDS; k++)
		json_object_set_new(faults, perf_fault_name(k),
				    json_integer(J(r->wire.fault[k])));
	return json_pack("{s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:o}",
			 "faults", faults,
			 "rx_csum_bad", J(r->wire.csum_bad),
			 "rx_csum_none", J(r->wire.csum_none),
			 "rx_trimmed", J(r->wire.trimmed),
			 "rx_malformed", J(r->wire.malformed),
			 "rx_chained", J(r->wire.chained),
			 "rx_linearized", J(r->wire.linearized),
			 "tss", json_tss(r));
}

static json_t *
json_recovery(const struct perf_report *r)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I,"
			 " s:I, s:I, s:I}",
			 "retx_sack", J(r->rec.sack),
			 "retx_again", J(r->rec.again),
			 "retx_nack", J(r->rec.nack),
			 "retx_trim", J(r->rec.trim), "retx_rto", J(r->rec.rto),
			 "retx_probe", J(r->rec.probe),
			 "retx_tlp", J(r->rec.tlp),
			 "retx_backoff", J(r->rec.backoff),
			 "resend_cancelled", J(r->rec.cancelled),
			 "rto_fires", J(r->rec.rto_fires),
			 "tlp_fires", J(r->rec.tlp_fires),
			 "rod_goback", J(r->rec.rod_goback),
			 "rod_nack_stale", J(r->rec.rod_stale));
}

/* The figures of the test: rates, costs, counters. */
static json_t *
json_figures(const struct perf_report *r)
{
	return json_pack(
		"{s:s, s:i, s:I, s:i, s:i, s:i, s:f, s:f, s:f, s:f, s:f, s:f,"
		" s:f, s:f, s:I, s:I, s:I, s:I, s:I, s:b, s:b, s:o, s:o}",
		"pds", r->pds, "size", (int)r->size, "count", J(r->count),
		"window", (int)r->window, "loss_ppm", (int)r->loss_ppm,
		"pkts_per_msg", (int)r->pkts_per_msg, "seconds", r->seconds,
		"msgs_per_s", r->msgs_per_s, "gbytes_per_s", r->gbytes_per_s,
		"ns_per_msg_a", r->ns_per_msg_a,
		"ns_per_msg_b", r->ns_per_msg_b, "loop_share", r->loop_share,
		"cpu_seconds", r->cpu_seconds,
		"msgs_per_cpu_s", r->msgs_per_cpu_s,
		"retransmissions", J(r->retx),
		"duplicates_suppressed", J(r->dup_suppressed),
		"faults_dropped", J(r->faults_dropped),
		"tx_frames", J(r->tx_frames), "acks", J(r->acks),
		"complete", r->complete, "verified", r->verified,
		"recovery", json_recovery(r),
		"load_balancing", json_pack("{s:I, s:I, s:I}",
			"lb_recycled", J(r->rec.lb_recycled),
			"lb_explored", J(r->rec.lb_explored),
			"lb_freezes", J(r->rec.lb_freezes)));
}

json_t *
perf_json_report(const struct perf_report *r)
{
	json_t *o = json_figures(r);

	if (o == NULL)
		return NULL;
	if (r->lat_n)
		json_object_set_new(o, "latency_ns", json_pack(
			"{s:I, s:f, s:f, s:f, s:f, s:f, s:f}",
			"n", J(r->lat_n), "min", r->lat_min, "p50", r->lat_p50,
			"p99", r->lat_p99, "p999", r->lat_p999,
			"max", r->lat_max, "avg", r->lat_avg));
	if (r->nb_flows) {
		json_object_set_new(o, "peers", json_integer(r->nb_flows));
		json_object_set_new(o, "jain_index", json_real(r->jain));
		json_object_set_new(o, "flows", json_flows(r));
	}
	if (r->pdcs.n)
		json_object_set_new(o, "pdcs", perf_pdcs_json(r));
	json_object_set_new(o, "wire", json_wire(r));
	json_object_set_new(o, "stopped", json_boolean(r->stopped));
	json_object_set_new(o, "ulp", json_string(r->ses.on ? "ses" : "raw"));
	json_object_set_new(o, "payload_checked",
			    json_boolean(!r->ses.on || r->ses.payload_checked));
	if (r->ses.on)
		json_ses(o, &r->ses);
	json_object_set_new(o, "sender", json_side(&r->tx));
	json_object_set_new(o, "receiver", json_side(&r->rx));
	return o;
}

int
perf_json_print(json_t *doc)
{
	int rc = -ENOMEM;

	if (doc != NULL) {
		rc = json_dumpf(doc, stdout, JSON_COMPACT |
				JSON_REAL_PRECISION(9)) == 0 &&
		     fputc('\n', stdout) != EOF ? 0 : -EIO;
		fflush(stdout);
	}
	json_decref(doc);
	if (rc < 0)
		fprintf(stderr, "uet-perf: --json: %s\n", rc == -ENOMEM ?
			"could not build the document" : "cannot write");
	return rc;
}
