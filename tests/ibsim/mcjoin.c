// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mcjoin: joins end ports to a multicast group through the SA, as a full
 * member (SubnAdmSet(MCMemberRecord) with MGID, PortGID and JoinState),
 * one request per port GUID given; the requester's port proxies for the
 * others (OpenSM allows it when they share a partition). Under ibsim
 * (LD_PRELOAD=libumad2sim.so) the requester is the node SIM_HOST names.
 * Debian has no tool that joins a group, and the multicast tests need
 * members so that OpenSM builds a spanning tree from the hop tables.
 *
 * usage: mcjoin MGID PORTGUID...   (MGID as ff12:401b:ffff::ffff:ffff)
 * Prints "joined 0xGUID mlid 0xMLID" per port; exit 1 when one failed.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

/* MCMemberRecord component mask bits (IBA 15.2.5.17). */
#define MCR_MGID (1ull << 0)
#define MCR_PORT_GID (1ull << 1)
#define MCR_JOIN_STATE (1ull << 16)

static int join(struct ibmad_port *port, ib_portid_t *sm, const uint8_t *mgid,
		uint64_t guid)
{
	uint8_t buf[IB_SA_DATA_SIZE] = {0}, gid[16];
	ib_sa_call_t sa = {0};
	uint64_t prefix = htobe64(0xfe80000000000000ull), g = htobe64(guid);

	memcpy(gid, &prefix, 8);
	memcpy(gid + 8, &g, 8);
	mad_set_array(buf, 0, IB_SA_MCM_MGID_F, (void *)mgid);
	mad_set_array(buf, 0, IB_SA_MCM_PORTGID_F, gid);
	mad_set_field(buf, 0, IB_SA_MCM_JOIN_STATE_F, 1);
	sa.attrid = IB_SA_ATTR_MCRECORD;
	sa.method = IB_MAD_METHOD_SET;
	sa.mask = MCR_MGID | MCR_PORT_GID | MCR_JOIN_STATE;
	if (!sa_rpc_call(port, buf, sm, &sa, 2000)) {
		fprintf(stderr,
			"mcjoin: port 0x%016" PRIx64 ": no answer or"
			" an error from the SA\n",
			guid);
		return -1;
	}
	printf("joined 0x%016" PRIx64 " mlid 0x%04x\n", guid,
	       mad_get_field(buf, 0, IB_SA_MCM_MLID_F));
	return 0;
}

int main(int argc, char **argv)
{
	int mgmt[] = {IB_SA_CLASS};
	umad_port_t info;
	struct ibmad_port *port;
	ib_portid_t sm = {0};
	uint8_t mgid[16];
	int status = 0;

	if (argc < 3 || inet_pton(AF_INET6, argv[1], mgid) != 1) {
		fprintf(stderr, "usage: mcjoin MGID PORTGUID...\n");
		return 2;
	}
	port = mad_rpc_open_port(NULL, 0, mgmt, 1);
	if (!port) {
		fprintf(stderr, "mcjoin: cannot open the umad port\n");
		return 1;
	}
	/* The SM's LID from the port's attributes: no SMP needed. */
	if (umad_get_port(NULL, 0, &info) < 0 || !info.sm_lid) {
		fprintf(stderr, "mcjoin: no SM found\n");
		mad_rpc_close_port(port);
		return 1;
	}
	sm.lid = info.sm_lid;
	umad_release_port(&info);
	for (int i = 2; i < argc; i++) {
		char *end;
		uint64_t guid = strtoull(argv[i], &end, 0);

		if (*end || !guid) {
			fprintf(stderr, "mcjoin: '%s' is not a port GUID\n",
				argv[i]);
			status = 2;
			continue;
		}
		if (join(port, &sm, mgid, guid))
			status = 1;
	}
	mad_rpc_close_port(port);
	return status;
}
