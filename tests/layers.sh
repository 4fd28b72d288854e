#!/bin/sh
# The core's groups may use only the groups below them:
#   model < io < route < estimate < tune < report < bound
# Each group is its own convenience library; an undefined symbol of one
# group that another group defines must come from a lower group. The
# plugin must not pull in the command-only groups report (libpng, libz)
# and bound (libglpk).
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
core=$top_builddir/src/core
groups="model:libcrmodel io:libcrio route:libcrroute estimate:libcrest tune:libcrtune report:libcrreport bound:libcrbound"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
status=0

for g in $groups; do
	name=${g%%:*}
	lib=$core/$name/.libs/${g#*:}.a
	[ -f "$lib" ] || { echo "FAIL: $lib not built"; exit 1; }
	nm -g --defined-only "$lib" 2>/dev/null |
		awk 'NF == 3 { print $3 }' | sort -u >"$tmp/$name.def"
	nm -u "$lib" 2>/dev/null | awk '{ print $NF }' | sort -u \
		>"$tmp/$name.undef"
done

below=
for g in $groups; do
	name=${g%%:*}
	for other in $groups; do
		o=${other%%:*}
		[ "$o" = "$name" ] && continue
		case " $below " in *" $o "*) continue ;; esac
		bad=$(comm -12 "$tmp/$name.undef" "$tmp/$o.def")
		if [ -n "$bad" ]; then
			echo "FAIL: group $name uses the higher group $o:"
			echo "$bad" | sed 's/^/    /'
			status=1
		fi
	done
	below="$below $name"
done

so=$top_builddir/.libs/libcroute.so
if [ -f "$so" ]; then
	if ldd "$so" | grep -E 'libpng|libz\.|libglpk' ||
	   nm -D "$so" | grep -iE 'png|glp_'; then
		echo "FAIL: libcroute.so links a command-only library (report: libpng, libz; bound: libglpk)"
		status=1
	fi
else
	echo "FAIL: $so not built"
	status=1
fi
[ "$status" -eq 0 ] && echo "layers: every group uses only lower groups"
exit "$status"
