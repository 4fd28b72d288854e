/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What one failure does to a routed fabric (croute resilience): every
 * cable or switch of a list taken out in turn, the fabric routed again as
 * OpenSM with the configuration would (croute_incremental's repair where
 * it applies, the engine list's fallbacks), checked, scored on random host
 * orders and compared with the intact tables block by block.
 *
 * A run's rows and the header they need make a struct cr_resil_report:
 * the one thing every output (text, JSON lines, HTML, shard files) is
 * written from, so that a report merged from shards is the single
 * process's, byte for byte.
 */
#ifndef CROUTE_RESIL_H
#define CROUTE_RESIL_H

#include <stdio.h>

#include <croute/estimate/estimate.h>
#include <croute/route/engine.h>

enum cr_fault_kind {
	CR_FAULT_CABLE = 1,
	CR_FAULT_SWITCH = 2,
};

/* A failure: a cable (both ends) or a switch, by node index. */
struct cr_fault {
	uint8_t kind;
	uint8_t port, rport; /* cable: the two ends' ports */
	uint32_t node, rnode; /* cable: the two ends; switch: node */
};

/* Every switch-to-switch cable once, in node then port order. */
#define CR_FAULTS_CABLES 0x1
/* Every switch, in node order. */
#define CR_FAULTS_SWITCHES 0x2
/* *out (allocated) and *n. 0, or -1 (logged) out of memory. */
int cr_faults_all(const struct cr_fabric *f, unsigned which,
		  struct cr_fault **out, uint32_t *n);
/*
 * A failure list file: one a line, '#' comments; a cable is two ends,
 * each NODE PORT (NODE a GUID or a node description, quoted when it has
 * blanks), a switch is one NODE. Errors name path and line (-1).
 */
int cr_faults_read(const struct cr_fabric *f, const char *path,
		   struct cr_fault **out, uint32_t *n);

/* Patterns scored per failure, at most. */
#define CR_RESIL_MAX_PATS 8
/* The engines of a fallback chain, at most. */
#define CR_RESIL_MAX_CHAIN 8
#define CR_RESIL_NAME 96

/* One failure's outcome, and how to name it in reports. */
struct cr_resil_row {
	uint32_t index; /* in the failure list */
	uint8_t kind; /* enum cr_fault_kind */
	uint8_t port, rport;
	uint64_t guid, rguid;
	char name[CR_RESIL_NAME], rname[CR_RESIL_NAME];
	int8_t engine; /* chain index of the engine that routed; -1: none */
	bool incremental; /* the repair made the tables */
	bool est_inc; /* scored by re-solving the changed phases */
	uint64_t pairs, unreachable, loops, non_minimal, credit_loops;
	uint32_t nodes_lost; /* nodes no longer reached (a switch's CAs) */
	double avg[CR_RESIL_MAX_PATS]; /* mean over the orders */
	double min[CR_RESIL_MAX_PATS];
	double bw; /* mean of avg[] over the patterns */
	uint64_t blocks; /* LFT blocks of 64 entries that change */
	uint64_t entries; /* LFT entries that change */
	double seconds; /* reported with --times only */
};

/* Everything a report is written from. */
struct cr_resil_report {
	char title[512];
	char config[1024]; /* the settings, as one line */
	char engines[CR_RESIL_MAX_CHAIN][48];
	unsigned nchain;
	char pat_name[CR_RESIL_MAX_PATS][64];
	unsigned npat;
	uint32_t orders;
	uint64_t seed;
	uint64_t digest; /* fabric, configuration, failure list */
	uint32_t total; /* failures in the list */
	unsigned shards; /* read from shards: into how many parts */
	double intact_avg[CR_RESIL_MAX_PATS], intact_min[CR_RESIL_MAX_PATS];
	double intact_bw;
	uint64_t intact_pairs;
	struct cr_resil_row *rows; /* total of them, in list order */
	bool times;
};

/* How to route, check and score each failure. */
struct cr_resil_conf {
	const struct cr_engine *chain[CR_RESIL_MAX_CHAIN];
	unsigned nchain;
	const struct cr_options *opts;
	bool incremental; /* croute_incremental */
	const struct cr_est_params *par; /* orders, order_seed */
	const struct cr_pattern *pats;
	unsigned npat;
	bool rail_order;
	/*
	 * Score a cable failure that loses no node by re-solving only the
	 * phases whose flows changed path (est_inc.h): the same figures,
	 * for default estimator parameters only (est_inc's).
	 */
	bool est_inc;
	unsigned threads; /* failures routed at once */
	/* called from any thread with the failures done so far */
	void (*progress)(void *arg, uint64_t done);
	void *arg;
};

struct cr_resil;

/*
 * Routes f intact (the first engine of the chain that can), scores it and
 * keeps what each failure is compared with. NULL (logged) when no engine
 * routes the intact fabric or memory runs out.
 */
struct cr_resil *cr_resil_new(const struct cr_fabric *f,
			      const struct cr_resil_conf *c);
void cr_resil_free(struct cr_resil *x);
/* The intact routing (for the digest). */
const struct cr_routing *cr_resil_routing(const struct cr_resil *x);
/* Fills the intact figures of rep (title, config, digest: the caller's). */
void cr_resil_intact(const struct cr_resil *x, struct cr_resil_report *rep);
/*
 * Rows for faults[begin..end) into rows[0..end-begin), on conf's threads;
 * every row is the same whatever the threads. 0, or -1 (logged).
 */
int cr_resil_run(struct cr_resil *x, const struct cr_fault *faults,
		 uint32_t begin, uint32_t end, struct cr_resil_row *rows);

/* FNV-1a over bytes, from h (CR_FNV_INIT to start). */
#define CR_FNV_INIT 0xcbf29ce484222325ULL
uint64_t cr_fnv(uint64_t h, const void *p, size_t n);
/* The fabric's nodes, ports, cables, LIDs and names. */
uint64_t cr_resil_digest_fabric(const struct cr_fabric *f);
uint64_t cr_resil_digest_routing(const struct cr_fabric *f,
				 const struct cr_routing *r);

/* The outputs (resil_out.c). Each returns 0 or -1 (write error). */
int cr_resil_write_text(FILE *out, const struct cr_resil_report *rep);
int cr_resil_write_json(FILE *out, const struct cr_resil_report *rep);
int cr_resil_write_html(FILE *out, const struct cr_resil_report *rep);
/*
 * A shard: rep's header and rows[begin..end) as part k of n. Read back
 * into a report whose rows (total of them) are marked by have[] (the
 * caller's, total entries): a row given twice, a header unlike rep's
 * (when rep->total is set), a broken file: -1 with the file named.
 */
int cr_resil_write_shard(FILE *out, const struct cr_resil_report *rep,
			 uint32_t begin, uint32_t end, unsigned k, unsigned n);
int cr_resil_read_shard(const char *path, struct cr_resil_report *rep,
			bool **have);
/* The part k (1-based) of n of total failures: [*begin, *end). */
void cr_resil_shard_range(uint32_t total, unsigned k, unsigned n,
			  uint32_t *begin, uint32_t *end);

#endif
