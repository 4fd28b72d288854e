#!/bin/sh
# Every document a source file cites is in the repository, and every
# section of doc/design.md it names exists: a reference that leads nowhere
# fails here, not in a reader's hands.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
cd "$top_srcdir" || exit 1
status=0
files=$(find src include tests bench scripts conf man Makefile.am \
	configure.ac README -type f \( -name '*.[ch]' -o -name '*.cpp' \
	-o -name '*.sh' -o -name '*.am' -o -name '*.ac' -o -name '*.[18]' \
	-o -name '*.conf' -o -name README -o -name '*.awk' \) \
	! -path 'tests/fuzz/corpus/*' ! -name docrefs.sh 2>/dev/null)

# Documents named like FOO.md or doc/...: they must exist.
for f in $files; do
	perl -ne 'while (/\b((?:doc\/)?[A-Za-z_-]+\.md)\b/g) {
		print "$1\n" }' "$f" | sort -u | while read -r doc; do
		case $doc in
		doc/*) [ -f "$doc" ] && continue ;;
		*) [ -f "doc/$doc" ] || [ -f "$(dirname "$f")/$doc" ] &&
			continue ;;
		esac
		echo "FAIL: $f cites $doc, which the repository does not have"
		echo 1 >"${TMPDIR:-/tmp}/docrefs.$$"
	done
done

# Sections: design.md, "Name" (comment lines joined, leaders removed).
sections=$(sed -n 's/^##* //p' doc/design.md)
for f in $files; do
	perl -0777 -ne 's/\n\s*(\*|\/\/|#)?\s*/ /g;
		while (/design\.md[,:]?\s*\(?"([^"]+)"/g) { print "$1\n" }' \
		"$f" | sort -u | while read -r sec; do
		printf '%s\n' "$sections" | grep -qxF -- "$sec" && continue
		echo "FAIL: $f cites doc/design.md section \"$sec\", which" \
			"does not exist"
		echo 1 >"${TMPDIR:-/tmp}/docrefs.$$"
	done
done
if [ -f "${TMPDIR:-/tmp}/docrefs.$$" ]; then
	rm -f "${TMPDIR:-/tmp}/docrefs.$$"
	exit 1
fi
echo "docrefs: every cited document and design.md section exists"
exit "$status"
