#!/bin/sh
test_description='html: pages of sessions opened in a real browser (headless chromium): every part of the session there, no request leaving the page, a hostile prompt shown and not run, a phone'"'"'s width, dark, print, a screenshot'
. ./lib.sh

browser="$TEST_DIRECTORY/../browser"
test_have_prereq BROWSER ||
	say "# the browser tests are skipped: no Node.js, no chromium (\$CHROMIUM, else /usr/bin/chromium), or no tests/browser/node_modules (make deps installs them)"
. "$browser/session.sh"

hostile='<script>window.__pwned=1;alert(1)</script><img src=x onerror="window.__pwned=2;alert(2)"> & "quoted" '"'"'too'"'"
hostile_goal='<img src=x onerror=alert(3)><a href="https://example.com/">x</a> <style>body{display:none}</style>'

test_expect_success 'setup: a session with everything a page shows, and one with nothing but a hostile goal' '
	browser_session oauth-login "$hostile" &&
	bs_s start "Nothing yet" --id quiet --goal "$hostile_goal" --pause-current &&
	git session html oauth-login -o page.html -q &&
	git session html >active.html &&
	early=$(git log --format=%H --grep="^commit " refs/sessions/oauth-login | tail -n 1) &&
	git session html $early -o early.html -q &&
	git session html --all -o site -q &&
	test -f site/index.html && test -f site/oauth-login.html && test -f site/quiet.html
'

test_expect_success BROWSER 'in chromium: the pages and the index hold the sessions, nothing runs, nothing is fetched' '
	python3 "$browser/expect.py" --hostile "$hostile" --secret "$bs_secret" --screenshot shot.png \
		--index site/index.html oauth-login quiet -- \
		page.html oauth-login early.html $early site/oauth-login.html oauth-login >expect.json &&
	python3 "$browser/expect.py" --hostile "$hostile_goal" active.html quiet >expect-quiet.json &&
	python3 - expect.json expect-quiet.json <<-\PY &&
	import json, re, sys
	a, b = (json.load(open(f)) for f in sys.argv[1:])
	a["pages"] += b["pages"]
	assert a["pages"][0]["hostile"] and a["pages"][-1]["hostile"], "the hostile texts are on no page"
	assert a["pages"][-1]["empty"] == ["conversation", "files", "commits", "decisions", "errors", "tasks", "tokens"], a["pages"][-1]["empty"]
	assert len(a["pages"][1]["commits"]) == 1 and len(a["pages"][0]["commits"]) == 3
	assert [len(c["prompts"]) for c in a["pages"][0]["conversations"]] == [5, 1], a["pages"][0]["conversations"]
	assert "docs/a <b>&\"\u00e9\" '"'"'q'"'"'.md" in a["pages"][0]["files"], a["pages"][0]["files"]
	# the same page spoiled: the checks must see it
	page = open("page.html", encoding="utf-8").read()
	spoilt = page.replace("&lt;script&gt;window.__pwned=1", "<script>window.__pwned=1</script>&lt;script&gt;", 1)
	spoilt = re.sub("<meta http-equiv=[^>]*>", "", spoilt)
	spoilt = spoilt.replace("</h1>", "</h1><img src=\"https://example.com/x.png\"><div style=\"width:2000px\">wide</div>", 1)
	assert spoilt.count("__pwned=1</script>") == 1 and "Content-Security-Policy" not in spoilt
	open("spoilt.html", "w", encoding="utf-8").write(spoilt)
	bad = dict(a["pages"][0], file="spoilt.html", must_fail=["Content-Security-Policy", "no script",
		"hostile prompt", "375 px", "no request left", "no dialog"])
	a["pages"].append(bad)
	json.dump(a, open(sys.argv[1], "w"))
	PY
	BROWSER_PROFILE_DIR="$TRASH_DIRECTORY" node "$browser/page-check.mjs" expect.json >check.out 2>check.err ||
		{ cat check.out check.err; return 1; }
	cat check.out &&
	grep "^[0-9]* passed, 0 failed$" check.out &&
	! grep "^not ok" check.out &&
	test $(grep -c "^ok" check.out) -ge 150 &&
	test_must_be_empty check.err
'

test_expect_success BROWSER 'the screenshot is a PNG of the page, 1000 px wide' '
	python3 -c "
import struct, sys
b = open(\"shot.png\", \"rb\").read()
assert b[:8] == b\"\\x89PNG\\r\\n\\x1a\\n\", b[:8]
w, h = struct.unpack(\">II\", b[16:24])
assert w == 1000 and h > 100, (w, h)
"
'

test_done
