/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Cluster plans in ibdm's formats: a topology file cables systems ("MTS14400
 * SL1-1", "L1/P1 -> MT23108 H-1 P1"), and ibnl files say what each system
 * type holds (its switch and HCA chips, the boards they sit on, and how
 * front-panel ports reach them). ibdm-topo-file(1) and ibdm-ibnl-file(1)
 * describe both.
 *
 * The ibnl files are searched in the directories cr_ibdm_add_dir() adds,
 * in that order, then in the installed one: the highest ibdm<version>/ibnl
 * under the multiarch library directory (/usr/lib/<triplet>/), else under
 * /usr/lib64, /usr/lib or /usr/local/lib.
 */
#ifndef CROUTE_IBDM_H
#define CROUTE_IBDM_H

#include <stdbool.h>
#include <stdio.h>

#include <croute/model/fabric.h>

/* Searched before the installed definitions, in the order added. */
int cr_ibdm_add_dir(const char *dir);
/* The installed ibnl directory, or NULL when ibdm's files are absent. */
const char *cr_ibdm_installed_dir(void);

/*
 * Whether in (rewound by the caller) reads as an ibdm topology file: its
 * first line that is not blank or a comment names a system ("TYPE NAME",
 * perhaps "CFG: ..."), and the next one is a connection ("... -> ...").
 */
bool cr_ibdm_is_topo(FILE *in);

/*
 * What a plan names: for each node port, the system and front-panel port
 * a cabling crew reads ("SL1-1 L1/P1"), for the ports a plan can cable.
 */
struct cr_ibdm_plan;

/*
 * Reads a topology file and expands its systems. Every node is named
 * SYSTEM/BOARD/CHIP ("SL1-1/L3/U1": boards leafN and spineN become LN and
 * SN, as on the chassis' panels); a system with one chip is named as the
 * system ("H-1"). Node GUIDs are FNV-1a 64 of that name, its low byte
 * cleared (a CA's port GUIDs are GUID + port) and its top byte 0x02 for a
 * switch, 0x03 for a CA, so that the same name always gives the same GUID
 * and, nodes coming in GUID order, a converted plan starts with a switch,
 * where ibsim attaches OpenSM (a host's port 1 may be uncabled).
 * Link widths and speeds: the file's ("-4X-5G->"), else the ibnl files'
 * (the lowest level that gives one), else 4x and SDR, as ibsim and an
 * ibnetdiscover file without rates assume.
 * plan (when not NULL) gets the port names; free it with
 * cr_ibdm_plan_free(). Errors name the file and line; NULL.
 */
struct cr_fabric *cr_ibdm_read_file(FILE *in, const char *name,
				    struct cr_ibdm_plan **plan);
struct cr_fabric *cr_ibdm_read(const char *path, struct cr_ibdm_plan **plan);

/* "SL1-1 L1/P1", or NULL for a port inside a system or out of range. */
const char *cr_ibdm_port_name(const struct cr_ibdm_plan *plan, uint32_t node,
			      unsigned port);
/* The line of the topology file that cables the port, 0 for none. */
unsigned cr_ibdm_port_line(const struct cr_ibdm_plan *plan, uint32_t node,
			   unsigned port);
/* Whether that line is in the block of the port's own system. */
bool cr_ibdm_port_listed(const struct cr_ibdm_plan *plan, uint32_t node,
			 unsigned port);
/* The width and speed the plan gives a port: 0 and unknown where none. */
void cr_ibdm_port_rate(const struct cr_ibdm_plan *plan, uint32_t node,
		       unsigned port, uint8_t *width, enum cr_speed *speed);
void cr_ibdm_plan_free(struct cr_ibdm_plan *plan);

/* What cr_ibdm_diff() found, by kind of difference. */
struct cr_ibdm_diff {
	unsigned missing, miswired, extra, rates; /* cables */
	unsigned lost, unplanned; /* nodes */
};
/*
 * Writes to out the punch list of plan pf (as cr_ibdm_read() gave it)
 * against the fabric rf as cabled, one line a difference, and counts
 * them in *d. 0, or -1 (logged) when out of memory.
 */
int cr_ibdm_diff(FILE *out, const struct cr_fabric *pf,
		 const struct cr_ibdm_plan *plan, const struct cr_fabric *rf,
		 struct cr_ibdm_diff *d);

#endif
