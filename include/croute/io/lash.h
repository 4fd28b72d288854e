/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cr-lash's path SLs and SL-to-VL tables in the formats ibdmchk reads, so
 * that its credit-loop check can model the layers (ibdmchk -c and -d):
 *
 *   path SLs:  "0x<source node GUID> <destination LID> <SL>" per line,
 *              GUID in lower-case hex, LID and SL in decimal; every CA and
 *              switch to every LID in use (ibdmchk wants every destination
 *              of a source it knows).
 *   SL2VL:     "0x<switch GUID> <in port> <out port> 0xVV 0xVV ... " per
 *              line, eight bytes of two VLs each (SL 0 and 1 first), for
 *              every pair of port 0 and cabled ports of every switch.
 *
 * Meant for the plugin (croute-lash-sl.dump and croute-lash-sl2vl.dump in
 * OpenSM's dump directory) and the command. Give ibdmchk both files with
 * the opensm-subnet.lst, opensm.fdbs and opensm.mcfdbs of the same sweep.
 */
#ifndef CROUTE_LASH_H
#define CROUTE_LASH_H

#include <stdio.h>
#include <croute/model/routing.h>

/*
 * The switch whose path SLs node n's traffic uses: n itself for a switch,
 * else the switch its first cabled port leads to; CR_NO_NODE when none.
 * The SL files' writer and reader share this rule.
 */
uint32_t cr_lash_source_switch(const struct cr_fabric *f, uint32_t n);

/*
 * Writes r's path SLs. A CA's SL toward a LID is that of the switch its
 * first cabled port leads to. Returns 0, or -1 when r has no SLs or the
 * write fails (logged).
 */
int cr_lash_write_psl(FILE *out, const struct cr_fabric *f,
		      const struct cr_routing *r);

/*
 * The compact form of r's path SLs, for engines whose SLs depend only on
 * the source and destination switch: "0x<source switch GUID>
 * 0x<destination switch GUID> <SL>" per line, every switch with SLs to
 * every switch with a LID behind it (its own, its CAs'). A CA's paths take
 * its switch's SL, every LID behind a switch that switch's line. Lines
 * grow with switches squared, not nodes times LIDs. -1 (logged, naming
 * the switches and LIDs) when two LIDs behind one switch take different
 * SLs from one source switch, or on a write error.
 */
int cr_lash_write_switch_psl(FILE *out, const struct cr_fabric *f,
			     const struct cr_routing *r);

/* Writes r->sl2vl as every switch's table for every port pair. */
int cr_lash_write_sl2vl(FILE *out, const struct cr_fabric *f,
			const struct cr_routing *r);

/*
 * Reads the path SLs, per LID or in the compact form (lines of either
 * kind may mix), (and the SL2VL table, when sl2vl is not NULL; else
 * SL i uses VL i) of an installed layered routing into r, whose LFTs are
 * read. Returns 0, or -1 with the file and line logged.
 */
int cr_lash_read(const char *psl, const char *sl2vl, const struct cr_fabric *f,
		 struct cr_routing *r);

/*
 * The SL2VL tables of an installed layered routing, as they are read
 * (from files, or from a fabric by croute --live): croute models one
 * table for every pair of switch ports, so cr_lash_sl2vl_add() refuses
 * (-1, the caller says where the table came from) one that differs from
 * the first. cr_lash_layers_done() then sets r->sl2vl (SL i on VL i when
 * t is NULL or got no table) and r->num_layers from r's SLs.
 */
struct cr_lash_sl2vl {
	bool have;
	uint8_t vl[16];
};
int cr_lash_sl2vl_add(struct cr_lash_sl2vl *t, const uint8_t vl[16]);
void cr_lash_layers_done(const struct cr_fabric *f, struct cr_routing *r,
			 const struct cr_lash_sl2vl *t);

/*
 * The SL of the path from the port holding slid to dlid (what path_sl
 * answers), or -1 when either LID is unknown or r has no SLs.
 */
int cr_lash_path_sl(const struct cr_fabric *f, const struct cr_routing *r,
		    uint16_t slid, uint16_t dlid);

#endif
