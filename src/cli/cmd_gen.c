// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* croute gen: writes generated fabrics as ibnetdiscover-format topologies. */
#include <string.h>

#include <croute/io/gen.h>
#include <croute/model/log.h>
#include <croute/io/topo.h>

#include "cli.h"

enum {
	KEY_SPEED = CLI_KEY_CMD,
	KEY_WIDTH,
	KEY_HCA_PORTS,
	KEY_LEAVES,
	KEY_HOSTS,
	KEY_UPLINKS,
	KEY_SPINES,
	KEY_SCRAMBLE,
	KEY_MESH,
	KEY_SWITCHES,
	KEY_LINKS,
	KEY_GROUPS,
	KEY_GLOBAL,
	KEY_TRUNK,
	KEY_SERVERS,
	KEY_RAILS,
	KEY_UNIT,
	KEY_SEED,
};

/* The options only some kinds take, as bits of given/allowed masks. */
#define BIT(key) (1u << (key - KEY_LEAVES))

static const struct cli_opt gen_opts[] = {
	{"output", 'o', "FILE", "write to FILE (default: stdout)"},
	{"speed", KEY_SPEED, "SPEED",
	 "SDR DDR QDR (default) FDR10 FDR EDR HDR NDR XDR"},
	{"width", KEY_WIDTH, "N", "link width: 1 2 4 (default) 8 12"},
	{"hca-ports", KEY_HCA_PORTS, "N", "ports per host, to one switch (1)"},
	{"lmc", CLI_KEY_LMC, "N", "also assign and write LIDs, with LMC N"},
	{"leaves", KEY_LEAVES, "N", "two-level, dragonfly-plus: leaf switches"},
	{"hosts-per-leaf", KEY_HOSTS, "N",
	 "hosts on each leaf (torus, random: each switch; 1; fat-tree: K/2)"},
	{"hosts", KEY_HOSTS, "N", "alias of --hosts-per-leaf"},
	{"uplinks", KEY_UPLINKS, "N", "two-level, fat-tree: uplinks per leaf"},
	{"spines", KEY_SPINES, "N",
	 "two-level, dragonfly-plus, rail-tree: spine switches"},
	{"scramble", KEY_SCRAMBLE, "SEED", "two-level: scramble spine wiring"},
	{"mesh", KEY_MESH, NULL, "torus: no wrap-around links"},
	{"switches", KEY_SWITCHES, "N", "random: switches"},
	{"links", KEY_LINKS, "D", "random: at most D links between switches"},
	{"seed", KEY_SEED, "S", "random: seed of the wiring"},
	{"groups", KEY_GROUPS, "G", "dragonfly-plus: groups"},
	{"global", KEY_GLOBAL, "N", "dragonfly-plus: global cables a spine"},
	{"trunk", KEY_TRUNK, "K", "hyperx: cables between two switches (1)"},
	{"servers", KEY_SERVERS, "N", "rail-tree: servers"},
	{"rails", KEY_RAILS, "R", "rail-tree: HCAs (rails) a server"},
	{"unit", KEY_UNIT, "U", "rail-tree: servers a scalable unit"},
	CLI_OPT_END,
};

static const struct cli_opt *const gen_tables[] = {gen_opts, NULL};

struct gen_ctx {
	const struct cli_cmd *cmd;
	const char *output;
	struct cr_gen_params p;
	int lmc;
	unsigned given;
	unsigned long val[KEY_SEED - KEY_LEAVES + 1];
};

static int gen_opt(void *arg, int key, const char *val)
{
	struct gen_ctx *g = arg;
	unsigned long v;
	char name[40];

	switch (key) {
	case 'o':
		g->output = val;
		return 0;
	case KEY_SPEED:
		g->p.speed = cr_speed_parse(val, strlen(val));
		if (g->p.speed == CR_SPEED_UNKNOWN) {
			cli_usage_error(g->cmd, "unknown speed '%s'", val);
			return -1;
		}
		return 0;
	case KEY_WIDTH:
		if (cli_uint(g->cmd, "--width", val, 12, &v))
			return -1;
		if (v != 1 && v != 2 && v != 4 && v != 8 && v != 12) {
			cli_usage_error(g->cmd, "--width: 1, 2, 4, 8 or 12");
			return -1;
		}
		g->p.width = v;
		return 0;
	case KEY_HCA_PORTS:
		if (cli_uint(g->cmd, "--hca-ports", val, CR_MAX_PORTS, &v))
			return -1;
		g->p.hca_ports = v ? v : 1;
		return 0;
	case CLI_KEY_LMC:
		if (cli_uint(g->cmd, "--lmc", val, CR_MAX_LMC, &v))
			return -1;
		g->lmc = (int)v;
		return 0;
	case KEY_MESH:
		g->given |= BIT(key);
		return 0;
	}
	snprintf(name, sizeof(name), "--%s", cli_opt_name(g->cmd, key));
	if (cli_uint(g->cmd, name, val,
		     key == KEY_SCRAMBLE || key == KEY_SEED ? UINT32_MAX
							    : 100000,
		     &v))
		return -1;
	g->given |= BIT(key);
	g->val[key - KEY_LEAVES] = v;
	return 0;
}

static unsigned long val(const struct gen_ctx *g, int key, unsigned long def)
{
	return g->given & BIT(key) ? g->val[key - KEY_LEAVES] : def;
}

/* The positional numbers after the kind. */
static int numbers(const struct gen_ctx *g, int argc, char **argv, int min,
		   int max, unsigned *out)
{
	unsigned long v;

	if (argc < min || argc > max) {
		if (!max)
			cli_usage_error(g->cmd, "%s takes options, no numbers",
					argv[-1]);
		else if (min == max)
			cli_usage_error(g->cmd, "%s takes %d numbers", argv[-1],
					min);
		else
			cli_usage_error(g->cmd, "%s takes %d to %d numbers",
					argv[-1], min, max);
		return -1;
	}
	for (int i = 0; i < argc; i++) {
		if (cli_uint(g->cmd, argv[-1], argv[i], 100000, &v))
			return -1;
		out[i] = v;
	}
	return 0;
}

#define DFLY_OPTS                                              \
	(BIT(KEY_GROUPS) | BIT(KEY_LEAVES) | BIT(KEY_SPINES) | \
	 BIT(KEY_HOSTS) | BIT(KEY_GLOBAL))
#define RAIL_OPTS \
	(BIT(KEY_SERVERS) | BIT(KEY_RAILS) | BIT(KEY_UNIT) | BIT(KEY_SPINES))

/* Today's fabrics: dragonfly+, HyperX, rail-optimized trees. */
static struct cr_fabric *generate_modern(struct gen_ctx *g, const char *kind,
					 int argc, char **argv)
{
	unsigned n[3];

	if (!strcmp(kind, "hyperx")) {
		if (numbers(g, argc, argv, 2, 3, n))
			return NULL;
		return cr_gen_hyperx(n, argc, val(g, KEY_HOSTS, 1),
				     val(g, KEY_TRUNK, 1), &g->p);
	}
	if (numbers(g, argc, argv, 0, 0, n))
		return NULL;
	if (!strcmp(kind, "rail-tree"))
		return cr_gen_rail_tree(
			val(g, KEY_SERVERS, 0), val(g, KEY_RAILS, 0),
			val(g, KEY_UNIT, 0), val(g, KEY_SPINES, 0), &g->p);
	return cr_gen_dragonfly_plus(
		val(g, KEY_GROUPS, 0), val(g, KEY_LEAVES, 0),
		val(g, KEY_SPINES, 0), val(g, KEY_HOSTS, 0),
		val(g, KEY_GLOBAL, 0), &g->p);
}

static struct cr_fabric *generate(struct gen_ctx *g, const char *kind, int argc,
				  char **argv)
{
	static const struct {
		const char *kind;
		unsigned allowed, required;
	} kinds[] = {
		{"ktree", 0, 0},
		{"fat-tree", BIT(KEY_HOSTS) | BIT(KEY_UPLINKS), 0},
		{"two-level",
		 BIT(KEY_LEAVES) | BIT(KEY_HOSTS) | BIT(KEY_UPLINKS) |
			 BIT(KEY_SPINES) | BIT(KEY_SCRAMBLE),
		 BIT(KEY_LEAVES) | BIT(KEY_HOSTS) | BIT(KEY_UPLINKS) |
			 BIT(KEY_SPINES)},
		{"torus", BIT(KEY_HOSTS) | BIT(KEY_MESH), 0},
		{"mesh", BIT(KEY_HOSTS), 0},
		{"random",
		 BIT(KEY_SWITCHES) | BIT(KEY_LINKS) | BIT(KEY_HOSTS) |
			 BIT(KEY_SEED),
		 BIT(KEY_SWITCHES) | BIT(KEY_LINKS) | BIT(KEY_SEED)},
		{"dragonfly-plus", DFLY_OPTS, DFLY_OPTS},
		{"hyperx", BIT(KEY_HOSTS) | BIT(KEY_TRUNK), BIT(KEY_HOSTS)},
		{"rail-tree", RAIL_OPTS, RAIL_OPTS},
	};
	unsigned k, n[3];

	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (!strcmp(kind, kinds[k].kind))
			break;
	if (k == sizeof(kinds) / sizeof(kinds[0])) {
		cli_usage_error(
			g->cmd, "unknown kind '%s' (%s)", kind,
			"ktree, fat-tree, two-level, torus, mesh, random,"
			" dragonfly-plus, hyperx, rail-tree");
		return NULL;
	}
	for (const struct cli_opt *o = gen_opts; o->name; o++) {
		if (o->key < KEY_LEAVES || o->key > KEY_SEED)
			continue;
		if ((g->given & BIT(o->key)) &&
		    !(kinds[k].allowed & BIT(o->key))) {
			cli_usage_error(g->cmd, "%s takes no --%s", kind,
					o->name);
			return NULL;
		}
		if ((kinds[k].required & BIT(o->key)) &&
		    !(g->given & BIT(o->key))) {
			cli_usage_error(g->cmd, "%s needs --%s", kind, o->name);
			return NULL;
		}
	}
	if (!strcmp(kind, "ktree")) {
		if (numbers(g, argc, argv, 2, 2, n))
			return NULL;
		return cr_gen_kary_ntree(n[0], n[1], &g->p);
	}
	if (!strcmp(kind, "fat-tree")) {
		if (numbers(g, argc, argv, 1, 1, n))
			return NULL;
		g->p.leaf_hosts = val(g, KEY_HOSTS, 0);
		g->p.leaf_uplinks = val(g, KEY_UPLINKS, 0);
		if ((g->given & BIT(KEY_HOSTS)) && !g->p.leaf_hosts) {
			cli_usage_error(g->cmd,
					"fat-tree needs --hosts-per-leaf >= 1");
			return NULL;
		}
		if ((g->given & BIT(KEY_UPLINKS)) && !g->p.leaf_uplinks) {
			cli_usage_error(g->cmd,
					"fat-tree needs --uplinks >= 1");
			return NULL;
		}
		return cr_gen_fat_tree(n[0], &g->p);
	}
	if (!strcmp(kind, "two-level")) {
		if (numbers(g, argc, argv, 0, 0, n))
			return NULL;
		g->p.seed = val(g, KEY_SCRAMBLE, 0);
		return cr_gen_two_level(
			val(g, KEY_LEAVES, 0), val(g, KEY_HOSTS, 0),
			val(g, KEY_UPLINKS, 0), val(g, KEY_SPINES, 0),
			g->given & BIT(KEY_SCRAMBLE), &g->p);
	}
	if (!strcmp(kind, "dragonfly-plus") || !strcmp(kind, "hyperx") ||
	    !strcmp(kind, "rail-tree"))
		return generate_modern(g, kind, argc, argv);
	if (!strcmp(kind, "random")) {
		if (numbers(g, argc, argv, 0, 0, n))
			return NULL;
		g->p.seed = val(g, KEY_SEED, 0);
		return cr_gen_random(val(g, KEY_SWITCHES, 0),
				     val(g, KEY_LINKS, 0), val(g, KEY_HOSTS, 1),
				     &g->p);
	}
	if (numbers(g, argc, argv, 1, 3, n))
		return NULL;
	return cr_gen_torus(n, argc,
			    strcmp(kind, "mesh") && !(g->given & BIT(KEY_MESH)),
			    val(g, KEY_HOSTS, 1), &g->p);
}

static int gen_run(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct gen_ctx g = {.cmd = cmd, .lmc = -1};
	struct cr_fabric *f;
	FILE *out;
	char *tmp;
	int first = cli_parse(cmd, argc, argv, gen_opt, &g);
	bool ok;

	if (first < 0)
		return first == -2 ? CLI_OK : CLI_BAD;
	if (first >= argc) {
		cli_usage_error(cmd, "which kind of fabric?");
		return CLI_BAD;
	}
	f = generate(&g, argv[first], argc - first - 1, argv + first + 1);
	if (!f)
		return CLI_BAD;
	/* The file's first node, where ibsim attaches OpenSM. */
	if (f->num_nodes)
		f->sm_port_guid = f->nodes[0].ports[0].guid;
	if (g.lmc >= 0 && cr_fabric_assign_lids(f, g.lmc)) {
		cr_fabric_free(f);
		return CLI_BAD;
	}
	out = cli_out_open(g.output, &tmp);
	if (!out) {
		cr_fabric_free(f);
		return CLI_BAD;
	}
	ok = !cr_topo_write(out, f);
	cr_verbose("%s: %u switches, %u other nodes",
		   g.output ? g.output : "stdout", f->num_switches,
		   f->num_nodes - f->num_switches);
	cr_fabric_free(f);
	return cli_out_close(out, tmp, g.output, ok) ? CLI_BAD : CLI_OK;
}

const struct cli_cmd cli_cmd_gen = {
	.name = "gen",
	.synopsis = "KIND [numbers] [options]",
	.summary = "Generate a fabric and write it in ibnetdiscover format.",
	.details = "Kinds:\n"
		   "  ktree K N       k-ary n-tree: K^N hosts, N levels of"
		   " K^(N-1) switches\n"
		   "                  with 2K ports\n"
		   "  fat-tree K [--hosts-per-leaf H] [--uplinks U]\n"
		   "                  the largest 3-level fat tree of K-port"
		   " switches:\n"
		   "                  K^3/4 hosts (27648 for K = 48); H hosts"
		   " per leaf\n"
		   "                  (default K/2) keeps every switch; U"
		   " uplinks a leaf\n"
		   "                  (U middle switches a pod, K - U hosts):"
		   " oversubscribed\n"
		   "  two-level --leaves L --hosts-per-leaf H --uplinks U"
		   " --spines S\n                  [--scramble SEED]\n"
		   "                  leaf/spine tree, any oversubscription\n"
		   "  torus X Y [Z] [--mesh] [--hosts-per-leaf H]\n"
		   "  mesh X Y [Z] [--hosts-per-leaf H]\n"
		   "  random --switches N --links D [--hosts-per-leaf H]"
		   " --seed S\n"
		   "                  connected irregular fabric\n"
		   "  dragonfly-plus --groups G --leaves L --spines S"
		   " --hosts-per-leaf H\n                  --global N\n"
		   "                  G leaf/spine groups, N cables a spine to"
		   " other groups\n"
		   "  hyperx S1 S2 [S3] --hosts-per-leaf H [--trunk K]\n"
		   "                  a grid, K cables between switches in a"
		   " line\n"
		   "  rail-tree --servers N --rails R --unit U --spines S\n"
		   "                  servers of R HCAs; leaf r of a unit takes"
		   " HCA r\n"
		   "--hosts is an alias of --hosts-per-leaf. Hosts are named"
		   " h0001, h0002, ...\nleaf by leaf, each leaf's hosts in"
		   " port order; GUIDs follow the same order.\n",
	.opts = gen_tables,
	.run = gen_run,
};
