#!/bin/bash
# gzip through the command: `croute route -o FILE.gz` writes what `-o FILE`
# writes, compressed; topologies, LFT dumps and guid2lid files are read
# compressed as well as plain, with the same results; the thread count
# never changes the tables; a corrupt gzip file is an error (exit 2).
. "$(dirname "$0")/lib.sh"
command -v gzip >/dev/null || { echo "SKIP: no gzip"; exit 77; }

"$croute" gen ktree 4 3 -o "$tmp/t.topo" || fail "croute gen"
gzip -c "$tmp/t.topo" >"$tmp/t.topo.gz"
for e in minhop updn ftree; do
	"$croute" route -q -t "$tmp/t.topo" -e "$e" --threads 1 \
		-o "$tmp/$e.dump" || fail "$e: route"
	"$croute" route -q -t "$tmp/t.topo.gz" -e "$e" --threads 3 \
		-o "$tmp/$e.dump.gz" || fail "$e: route from .gz to .gz"
	gzip -t "$tmp/$e.dump.gz" || fail "$e: not a gzip file"
	gzip -dc "$tmp/$e.dump.gz" | cmp -s - "$tmp/$e.dump" ||
		fail "$e: the .gz output differs (or 3 threads differ from 1)"
	"$croute" check -q -t "$tmp/t.topo.gz" --lfts "$tmp/$e.dump.gz" \
		>"$tmp/check.gz" 2>&1
	"$croute" check -q -t "$tmp/t.topo" --lfts "$tmp/$e.dump" \
		>"$tmp/check" 2>&1
	# The same report but for the file names in its first line.
	cmp -s <(tail -n +2 "$tmp/check") <(tail -n +2 "$tmp/check.gz") ||
		fail "$e: check reads the .gz files differently"
done
# A truncated gzip file: an error, not a short fabric.
head -c 2000 "$tmp/t.topo.gz" >"$tmp/cut.gz"
"$croute" route -q -t "$tmp/cut.gz" -o "$tmp/x" >"$tmp/out" 2>&1
rc=$?
[ $rc = 2 ] || fail "truncated .gz topology: exit $rc, expected 2"
exit $failed
