# Cuts a cable or a switch out of an ibnetdiscover topology (as croute gen
# writes it): the port lines on both ends of the cable go, or the switch's
# block and every port line cabled to it.
#   awk -v node='S-0002c90200000000' -v port=1 -f cut.awk in.topo  (cable)
#   awk -v node='S-0002c90200000000' -f cut.awk in.topo             (switch)
# Two passes over the file: give it twice (awk -f cut.awk f f).
function qname(s,   q) {
	split(s, q, "\"")
	return q[2]
}
FNR == 1 { pass++ }
/^(Switch|Ca|Rt)[ \t]/ { cur = qname($0) }
/^$/ { cur = "" }
pass == 1 {
	if (cur == node && port != "" && $1 == "[" port "]") {
		split($0, q, "\"")
		far = q[2]
		rest = q[3]
		sub(/^\[/, "", rest)
		sub(/\].*/, "", rest)
		farport = rest
	}
	next
}
# A node's header lines (sysimgguid=...) go with its block.
/^[a-z]+=/ {
	pending = pending $0 "\n"
	next
}
/^(Switch|Ca|Rt)[ \t]/ {
	if (!(port == "" && cur == node))
		printf "%s", pending
	pending = ""
}
/^$/ {
	printf "%s", pending
	pending = ""
}
{
	if (port == "" && cur == node)
		next
	if (port == "" && index($0, "\"" node "\"") && $1 ~ /^\[/)
		next
	if (port != "" && cur == node && $1 == "[" port "]")
		next
	if (port != "" && cur == far && $1 == "[" farport "]")
		next
	print
}
