#!/bin/sh
# The limits that keep the tree carriable:
#   - no file of src/ over 1,100 lines;
#   - no function over 150 lines (tables of options and data are not
#     functions: they open with "= {", not with a brace of their own);
#   - no function with more than 8 parameters: past that a call unpacks
#     a struct its caller has, and passing the struct reads better;
#   - each include names its layer (include/croute/LAYER/), and a file
#     of a core layer (src/core/LAYER, include/croute/LAYER) includes
#     headers of its own layer or lower ones only, in the order
#     model < io < route < estimate < tune < report < bound; the core
#     includes no OpenSM header; the plugin no report or bound header
#     (libpng, libz and GLPK stay out of opensm);
#   - the product speaks of itself: no "issue N", "stop N" or commit
#     identifier ("against 1a2b3c4") in src, include, doc, tests, bench,
#     man or conf.
# Prints each breach and exits 1 when there is any.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
cd "$top_srcdir" || exit 2
status=0
max_file=1100
max_func=150
max_params=8

files=$(find src include -name '*.[ch]' | LC_ALL=C sort)
[ -n "$files" ] || { echo "FAIL: no sources under $top_srcdir/src"; exit 1; }

for f in $files; do
	n=$(wc -l <"$f")
	if [ "$n" -gt "$max_file" ]; then
		echo "FAIL: $f has $n lines (at most $max_file)"
		status=1
	fi
done

# Kernel style: a function's body opens with "{" alone at column 0 and
# closes with "}" alone at column 0. Its length counts from the line after
# its name's line to the closing brace.
long=$(awk -v max="$max_func" '
	FNR == 1 { inbody = 0 }
	/^\{[ \t]*$/ && !inbody { inbody = 1; start = FNR; name = prev; next }
	inbody && /^\}/ {
		inbody = 0
		if (FNR - start + 1 > max)
			printf "%s:%d: %s (%d lines, at most %d)\n", FILENAME,
			       start, name, FNR - start + 1, max
		next
	}
	!inbody && /^[A-Za-z_]/ { prev = $0 }
' $files)
if [ -n "$long" ]; then
	echo "FAIL: functions over $max_func lines:"
	echo "$long" | sed 's/^/    /'
	status=1
fi

# Parameters of every definition: its header is the text since the last
# blank line, preprocessor line, line ending in ";" or closing "}" at
# column 0, up to its "{" alone at column 0. The list is the group of the
# header's last ")"; commas nested in it (function-pointer parameters) do
# not count, and "(void)" has none.
many=$(awk -v max="$max_params" '
	FNR == 1 { inbody = 0; decl = "" }
	inbody {
		if ($0 ~ /^\}/)
			inbody = 0
		next
	}
	/^\{[ \t]*$/ {
		inbody = 1
		s = decl
		gsub(/\/\*([^*]|\*+[^*\/])*\*+\//, " ", s)
		gsub(/\/\/[^\n]*/, " ", s)
		e = 0
		for (i = length(s); i > 0; i--)
			if (substr(s, i, 1) == ")") { e = i; break }
		depth = 0
		for (i = e; i > 0; i--) {
			c = substr(s, i, 1)
			if (c == ")") depth++
			else if (c == "(" && --depth == 0) break
		}
		list = substr(s, i + 1, e - i - 1)
		name = substr(s, 1, i - 1)
		sub(/[ \t\n]+$/, "", name)
		sub(/^.*[^A-Za-z0-9_]/, "", name)
		n = 0; depth = 0; any = 0
		for (i = 1; i <= length(list); i++) {
			c = substr(list, i, 1)
			if (c == "(") depth++
			else if (c == ")") depth--
			else if (c == "," && !depth) n++
			else if (c !~ /[ \t\n]/) any = 1
		}
		t = list
		gsub(/[ \t\n]/, "", t)
		n = (!any || t == "void") ? 0 : n + 1
		if (n > max)
			printf "%s:%d: %s (%d parameters, at most %d)\n",
			       FILENAME, FNR, name, n, max
		decl = ""
		next
	}
	/^[ \t]*$/ || /^#/ || /;[ \t]*$/ || /^\}/ {
		decl = ""
		next
	}
	{ decl = decl "\n" $0 }
' $files)
if [ -n "$many" ]; then
	echo "FAIL: functions with more than $max_params parameters:"
	echo "$many" | sed 's/^/    /'
	status=1
fi

# History in the product: issue and stop numbers, and commit identifiers
# cited as such (a hexadecimal word of 7 to 40 digits with at least one
# letter and one digit, after "against", "since", "commit", "before",
# "after" or "at"). GUIDs are written with 0x and are not matched.
hist=$(find src include doc tests bench man conf -type f \
	! -path 'tests/fuzz/corpus/*' ! -path 'tests/fabrics/*' \
	! -name '*.png' ! -name '*.gz' ! -name 'limits.sh' 2>/dev/null |
	LC_ALL=C sort | xargs grep -nIiE \
	'(^|[^a-z_])(issue|stop) #?[0-9]+|(against|since|commit|before|after|at) [0-9a-f]*([0-9][a-f]|[a-f][0-9])[0-9a-f]*\b' \
	2>/dev/null |
	grep -vE '(against|since|commit|before|after|at) [0-9a-f]{41,}' |
	awk -F: '{
		# keep only hex words of 7 to 40 characters for the commit rule
		line = $0
		if (line ~ /(issue|stop|ISSUE|STOP|Issue|Stop) #?[0-9]/) {
			print; next
		}
		if (match(line, /(against|since|commit|before|after|at) [0-9a-f]+/)) {
			w = substr(line, RSTART, RLENGTH)
			sub(/^[a-z]+ /, "", w)
			if (length(w) >= 7 && length(w) <= 40)
				print
		}
	}')
if [ -n "$hist" ]; then
	echo "FAIL: history cited in the product:"
	echo "$hist" | sed 's/^/    /'
	status=1
fi

# Layers of includes: a core file's layer is its folder's; each header
# of croute names its layer.
layers="model io route estimate tune report bound"
rank() {
	r=0
	for l in $layers; do
		[ "$l" = "$1" ] && { echo "$r"; return; }
		r=$((r + 1))
	done
	echo 99
}
bad_inc=$(for f in $files; do
	case $f in
	src/core/*/*) mine=${f#src/core/}; mine=${mine%%/*} ;;
	include/croute/*/*) mine=${f#include/croute/}; mine=${mine%%/*} ;;
	src/plugin/*) mine=plugin ;;
	*) mine= ;;
	esac
	grep -n '^#include <croute/' "$f" | while IFS= read -r line; do
		inc=${line#*<croute/}
		inc=${inc%%>*}
		case $inc in
		*/*) ;;
		*) echo "$f:${line%%:*}: <croute/$inc> names no layer"
		   continue ;;
		esac
		l=${inc%%/*}
		[ "$(rank "$l")" -eq 99 ] &&
			echo "$f:${line%%:*}: <croute/$inc>: no layer $l"
		case $mine in
		plugin)
			case $l in report | bound)
				echo "$f:${line%%:*}: the plugin includes <croute/$inc>"
			esac ;;
		"") ;;
		*)
			[ "$(rank "$l")" -gt "$(rank "$mine")" ] &&
				echo "$f:${line%%:*}: $mine includes the higher layer's <croute/$inc>"
		esac
	done
	case $f in
	src/core/* | include/*)
		grep -nE '^#include <(opensm|complib|iba|vendor)/' "$f" |
			sed "s|^|$f:|; s|\$| (an OpenSM header in the core)|" ;;
	esac
done)
if [ -n "$bad_inc" ]; then
	echo "FAIL: includes across layers:"
	echo "$bad_inc" | sed 's/^/    /'
	status=1
fi

[ "$status" -eq 0 ] &&
	echo "PASS: file and function lengths, parameters, layers of includes, no history cited"
exit "$status"
