#!/bin/sh
# The log sink compiles without warnings under GCC's sanitizer build
# (configure --enable-sanitizers): UBSan's checks must not leave GCC a
# path on which it sees a null printf format. Skips where the compiler
# cannot build with -fsanitize=undefined.
. "$(dirname "$0")/lib.sh"
cc=${CC:-cc}
echo 'int main(void) { return 0; }' >"$tmp/t.c"
"$cc" -fsanitize=address,undefined -c "$tmp/t.c" -o "$tmp/t.o" \
	2>/dev/null || {
	echo "SKIP: $cc cannot build with -fsanitize=address,undefined"
	exit 77
}
for f in src/core/model/log.c src/core/model/json_str.c; do
	"$cc" -fsanitize=address,undefined -O2 -Wall -Wextra -Werror \
		-I"$top_srcdir/include" -I"$top_builddir" -c "$top_srcdir/$f" \
		-o "$tmp/x.o" >"$tmp/err" 2>&1 || {
		sed 's/^/  | /' "$tmp/err" | head -n 8
		fail "$f: warnings in the sanitizer build"
	}
done
exit $failed
