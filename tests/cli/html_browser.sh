#!/bin/sh
# The HTML report in a real browser. Piped into a reader that leaves at
# once, estimate still writes the whole file (the same bytes as
# unpiped). Then Debian's chromium, headless, renders it: the page
# loads, every picture decodes (a script added to a copy counts images
# with a width after load), and the page names every switch by its GUID,
# on a fabric where switches share descriptions; in a 1280-pixel window
# the page scrolls only down (its scrollWidth at most 1280). Skipped
# without chromium.
. "$(dirname "$0")/lib.sh"

"$croute" gen ktree 4 3 -o "$tmp/gen.topo" || fail "gen"
sed 's/"sw-l1-1"/"sw-l1-0"/g' "$tmp/gen.topo" >"$tmp/k.topo"
expect_exit 0 estimate --topo "$tmp/k.topo" -e minhop --html "$tmp/want.html"

# stdout's reader is gone before the first byte: SIGPIPE, by default.
python3 - "$croute" "$tmp/k.topo" "$tmp/piped.html" <<'END' ||
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
subprocess.run([sys.argv[1], "estimate", "--topo", sys.argv[2], "-e",
                "minhop", "--html", sys.argv[3]], stdout=w,
               stderr=subprocess.DEVNULL, restore_signals=True)
END
	fail "python3 could not run the piped estimate"
cmp -s "$tmp/want.html" "$tmp/piped.html" ||
	fail "estimate --html with stdout piped away: the file is not complete"

browser=$(command -v chromium || command -v chromium-browser) || {
	echo "SKIP: no chromium (Debian package chromium) for the browser test"
	exit $((failed ? 1 : 77))
}
sed 's|</body>|<script>window.addEventListener("load", function () {\
var im = document.images, ok = 0;\
for (var i = 0; i < im.length; i++)\
	if (im[i].complete \&\& im[i].naturalWidth > 0) ok++;\
var d = document.createElement("p"); d.id = "croute-check";\
d.textContent = "images " + ok + " of " + im.length + ", width " +\
	document.documentElement.scrollWidth;\
document.body.appendChild(d); });</script></body>|' \
	"$tmp/want.html" >"$tmp/check.html"
grep -q 'id = "croute-check"\|croute-check' "$tmp/check.html" ||
	fail "the check script was not added"
mkdir "$tmp/profile"
timeout 120 "$browser" --headless --no-sandbox --disable-gpu \
	--disable-background-networking --disable-component-update \
	--disable-sync --no-first-run --user-data-dir="$tmp/profile" \
	--window-size=1280,900 --hide-scrollbars \
	--virtual-time-budget=5000 --dump-dom "file://$tmp/check.html" \
	>"$tmp/dom.html" 2>"$tmp/browser.err" ||
	fail "chromium failed: $(tail -n 5 "$tmp/browser.err")"
grep -q '<title>' "$tmp/dom.html" || fail "chromium rendered no page"
n=$(grep -c '<img' "$tmp/want.html")
[ "$n" -gt 0 ] || fail "the report has no image"
grep -q "<p id=\"croute-check\">images $n of $n, width " "$tmp/dom.html" ||
	fail "images did not load: $(grep -o 'images [0-9]* of [0-9]*' \
		"$tmp/dom.html")"
# A 1280-pixel window shows the whole page: nothing to scroll sideways.
w=$(sed -n 's/.*<p id="croute-check">images [0-9]* of [0-9]*, width \([0-9]*\)<.*/\1/p' \
	"$tmp/dom.html")
[ -n "$w" ] && [ "$w" -le 1280 ] ||
	fail "the report is ${w:-?} pixels wide in a 1280-pixel window"
for g in $(sed -n 's/^Switch.*"S-\([0-9a-f]*\)".*/\1/p' "$tmp/k.topo"); do
	grep -q "0x$g" "$tmp/dom.html" ||
		fail "the rendered page lacks switch GUID 0x$g"
done
exit $failed
