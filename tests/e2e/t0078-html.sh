#!/bin/sh
test_description='html: a session as one self-contained page holding its data, every text escaped; --all and an index'
. ./lib.sh

T="$HOME/.claude/projects/t/claude.jsonl"	# where Claude Code keeps it
SID=7e7e7e7e-0000
AGENT=claude-7e7e7e7e
mkdir -p "${T%/*}"
claude () {
	printf '%s' "{\"session_id\":\"$SID\",\"transcript_path\":\"$T\",\"cwd\":\"$PWD\",\"hook_event_name\":\"$1\"$2}" |
		git-session hook claude-code "$1" >/dev/null
}
s () { test_tick && git session "$@" -q; }
c () { test_tick && git add "$1" && git commit -q -m "$2" -m "$3"; }

# turn <n> <prompt>: the prompt, then its lines of transcript (from turns.py) and the turn's end
turn () {
	test_tick &&
	python3 "$TRASH_DIRECTORY/turns.py" "$1" >>"$T" &&
	claude UserPromptSubmit ",\"prompt\":$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$2")" &&
	test_tick &&
	claude Stop ",\"stop_hook_active\":false"
}

cat >"$TRASH_DIRECTORY/turns.py" <<'EOF'
import json, sys
n = int(sys.argv[1])
prompts = json.load(open("prompts.json"))
lines = [{"type": "user", "message": {"role": "user", "content": prompts[n - 1]}}]
def say(mid, content, i=100, o=20):
    lines.append({"type": "assistant", "message": {"id": "m%d%s" % (n, mid), "role": "assistant",
                  "content": content, "usage": {"input_tokens": i * n, "output_tokens": o}}})
if n == 2:
    say("a", [{"type": "tool_use", "id": "t2", "name": "Write", "input": {"file_path": "login.c", "content": "x"}}])
    lines.append({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t2", "content": "written"}]}})
if n == 3:
    say("a", [{"type": "tool_use", "id": "t3", "name": "Bash", "input": {"command": "make check"}}])
    lines.append({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t3", "is_error": True,
                  "content": "Exit code 2\n" + "make: *** [check] Error 2 </pre> ]]>\n" * 20000}]}})
if n == 4:	# many long results: past what the page keeps of them, each says only its size
    for k in range(80):
        say("r%d" % k, [{"type": "tool_use", "id": "r%d" % k, "name": "Read", "input": {"file_path": "log%02d.txt" % k}}], 1, 1)
        lines.append({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "r%d" % k,
                      "content": ("line %d of a long log\n" % k) * 600}]}})
if n == 5:
    say("a", [{"type": "tool_use", "id": "t5", "name": "Bash", "input": {"command": "echo all tests pass"}}])
    lines.append({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t5", "content": "all tests pass"}]}})
say("z", [{"type": "text", "text": "Reply %d: done </pre> ]]> <b>bold</b>" % n}])
for l in lines:
    print(json.dumps(l))
EOF

test_expect_success 'setup: phases, agents, five prompts, commits, decisions, errors, tasks, a budget' '
	cat >prompts.json <<-\EOF &&
	["P1 design the login", "P2 <script>alert(1)</script> write login.c", "P3 run the tests",
	 "P4 & \"quotes\" '"'"'single'"'"' <img src=x onerror=alert(2)>", "P5 wrap up"]
	EOF
	git commit -q --allow-empty -m init &&
	s start "Add OAuth" --id oauth --goal "Sign in with GitHub" --phase Design --phase Build --budget 100000 &&
	git session hooks install >/dev/null &&
	git config session.transcripts all &&
	s phase start 1 &&
	s agent start arch-1 --type architect --task "Design the API" &&
	s decide "Use the device flow" --rationale "works without a browser" &&
	s agent done arch-1 &&
	s phase complete 1 &&
	s phase start 2 &&
	echo "int main(void) { return 0; }" >login.c &&
	s file created login.c &&
	c login.c "login: a first cut" "The body of the first commit." &&
	turn 1 "P1 design the login" &&
	turn 2 "P2 <script>alert(1)</script> write login.c" &&
	turn 3 "P3 run the tests" &&
	test_tick && claude PreCompact ",\"trigger\":\"manual\",\"custom_instructions\":null" &&
	turn 4 "P4 & \"quotes\" '"'"'single'"'"' <img src=x onerror=alert(2)>" &&
	turn 5 "P5 wrap up" &&
	echo "/* poll */" >>login.c &&
	s file modified login.c &&
	c login.c "login: poll the device" "Second body, with <tags> & ampersands." &&
	echo "# OAuth" >README.md &&
	c README.md "docs: a README" "Committed, never recorded by hand: the commit records it." &&
	echo "DEPLOY_TOKEN=Zq8vN3xLr7TbW2mK" >deploy.env &&
	c deploy.env "deploy: its settings" "password=Hunter2Hunter2x in the body" &&
	s phase fail 2 --error "client does not build" --type validation &&
	s phase retry 2 &&
	s error add --type runtime --message "token refresh failed </li>" &&
	s task add "Write the changelog" &&
	s task add "Ship it" &&
	s task done 1 &&
	s tokens add --agent arch-1 --input 2000 --output 1000 &&
	git session transcript >transcript.txt &&
	test "$(grep -c "^> P" transcript.txt)" = 5
'

cat >"$TRASH_DIRECTORY/check.py" <<'EOF'
import json, re, subprocess, sys
from html.parser import HTMLParser

page_path, state_path = sys.argv[1], sys.argv[2]
raw = open(page_path, "rb").read()
text = raw.decode("utf-8")
state = json.load(open(state_path))
git = lambda *a: subprocess.run(("git",) + a, check=True, capture_output=True, text=True).stdout.strip()

class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.elems, self.ids, self.hrefs = [], [], set(), []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        e = {"tag": tag, "attrs": a, "text": "", "parents": list(self.stack)}
        self.elems.append(e)
        if "id" in a:
            assert a["id"] not in self.ids, "id twice: " + a["id"]
            self.ids.add(a["id"])
        if "href" in a:
            self.hrefs.append(a["href"])
        if tag not in ("meta", "br", "hr", "img", "input", "link", "wbr"):
            self.stack.append(e)
    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if self.stack and self.stack[-1]["tag"] == tag:
            self.stack.pop()
    def handle_endtag(self, tag):
        while self.stack:
            e = self.stack.pop()
            if e["tag"] == tag:
                break
    def handle_data(self, data):
        for e in self.stack:
            e["text"] += data

p = Page()
p.feed(text)
def find(tag, **want):
    out = []
    for e in p.elems:
        if e["tag"] != tag:
            continue
        ok = True
        for k, v in want.items():
            k = k.replace("_", "-").rstrip("-")
            have = e["attrs"].get(k)
            if k == "class":
                ok = ok and have is not None and set(v.split()) <= set(have.split())
            else:
                ok = ok and have == v
        if ok:
            out.append(e)
    return out
def inside(e, tag, **want):
    return [x for x in find(tag, **want) if any(q is e for q in x["parents"])]

# the frame: no script, no request, the contract's head
assert len(raw) < 1 << 20, len(raw)
assert text.startswith("<!doctype html>")
assert not find("script") and "<script" not in text.lower()
assert all(h.startswith("#") for h in p.hrefs), [h for h in p.hrefs if not h.startswith("#")]
assert not [e for e in p.elems if set(e["attrs"]) & {"src", "srcset", "action", "formaction", "poster", "data", "style"}]
assert not [e for e in p.elems if any(k.startswith("on") for k in e["attrs"])]
assert not find("link") and not find("img") and not find("iframe") and not find("object") and not find("form")
assert "url(" not in text and "@import" not in text
csp = find("meta", http_equiv="Content-Security-Policy")
assert csp and csp[0]["attrs"]["content"] == "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'", csp
assert find("html", lang="en")
assert find("meta", name="viewport", content="width=device-width, initial-scale=1")
assert find("meta", name="color-scheme", content="light dark")
assert "@media (prefers-color-scheme: dark)" in text and "@media print" in text

# every link within the page lands
for h in p.hrefs:
    assert h[1:] in p.ids, "a link to nothing: " + h
nav = find("nav", id="toc")[0]
sections = ["timeline", "conversation", "files", "commits", "decisions", "errors", "tasks", "tokens"]
for sid in sections:
    sec = find("section", id=sid)
    assert sec and inside(sec[0], "h2"), sid
    assert inside(nav, "a", href="#" + sid), sid

# the summary
dd = {e["attrs"]["data-field"]: e["text"] for e in find("dd") if "data-field" in e["attrs"]}
assert find("h1")[0]["text"] == "oauth"
assert dd["goal"] == "Sign in with GitHub", dd
assert dd["status"] == state["status"]
assert dd["checkpoint"] == git("rev-parse", "refs/sessions/oauth"), dd
assert dd["created"] == state["created"] and dd["updated"] == state["updated"]
assert dd["branch"] == state["project"]["branch"]
used = state["tokens"]["input"] + state["tokens"]["output"]
assert dd["tokens"].startswith("%d used" % used), dd["tokens"]
assert dd["budget"].startswith("100000"), dd["budget"]
assert "A U Thor" in dd["who"] or "C O Mitter" in dd["who"], dd["who"]

# the timeline
svg = find("svg", role="img")[0]
assert svg["attrs"].get("aria-label")
phases = [e["attrs"]["data-id"] for e in inside(svg, "g", class_="phase")]
assert phases == ["1", "2"], phases
agents = [e["attrs"]["data-id"] for e in inside(svg, "g", class_="agent")]
assert sorted(agents) == sorted(a["id"] for a in state["agents"]), agents
for g in inside(svg, "g", class_="phase") + inside(svg, "g", class_="agent") + inside(svg, "g", class_="mark"):
    assert inside(g, "title"), g
kinds = [g["attrs"]["data-kind"] for g in inside(svg, "g", class_="mark")]
assert kinds.count("prompt") == 5, kinds
assert kinds.count("commit") == len(state["commits"]) == 4, kinds
assert "failure" in kinds and "retry" in kinds and "compact" in kinds, kinds
for g in inside(svg, "g", class_="mark", data_kind="commit"):
    assert g["parents"][-1]["tag"] == "a" and g["parents"][-1]["attrs"]["href"].startswith("#commit-")

# the conversation, as transcript shows it
agent = [e for e in find("article", class_="agent") if e["attrs"]["id"] == "agent-" + sys.argv[3]][0]
prompts = [e["text"] for e in inside(agent, "div", class_="turn prompt")]
assert prompts == json.load(open("prompts.json")), prompts
replies = [e["text"] for e in inside(agent, "div", class_="turn reply")]
assert replies == ["Reply %d: done </pre> ]]> <b>bold</b>" % n for n in range(1, 6)], replies
shell = inside(agent, "details", class_="tool shell")
assert [e["attrs"]["data-exit"] for e in shell] == ["2", "0"], shell
assert "make check" in inside(shell[0], "summary")[0]["text"]
assert "bytes more not shown" in shell[0]["text"]
reads = [t for t in inside(agent, "details", class_="tool") if inside(t, "summary")[0]["text"].startswith("Read")]
assert len(reads) == 80, len(reads)
assert "bytes not shown, to keep the page small" in reads[-1]["text"] and not inside(reads[-1], "pre", class_="result")
assert inside(reads[0], "pre", class_="result")
tools = inside(agent, "details", class_="tool")
assert any("Write" in inside(t, "summary")[0]["text"] for t in tools)
assert find("article", id="agent-arch-1")

# the files, each change with its diff
f = find("article", class_="file", id="file-login.c")[0]
assert inside(f, "h3")[0]["text"] == "login.c"
diffs = inside(f, "pre", class_="diff")
assert len(diffs) == 2, len(diffs)
assert [e["text"] for e in inside(diffs[0], "span", class_="add")] == ["+int main(void) { return 0; }\n"]
assert [e["text"] for e in inside(diffs[1], "span", class_="add")] == ["+/* poll */\n"]

f = find("article", class_="file", id="file-README.md")[0]
diffs = inside(f, "pre", class_="diff")
assert [[e["text"] for e in inside(d, "span", class_="add")] for d in diffs] == [["+# OAuth\n"]], diffs

# the commits with their messages
for cm in state["commits"]:
    li = find("li", class_="commit", id="commit-" + cm["id"])
    assert li and cm["subject"] in li[0]["text"], cm
bodies = " ".join(e["text"] for e in find("li", class_="commit"))
assert "The body of the first commit." in bodies and "Second body, with <tags> & ampersands." in bodies

# decisions, errors, tasks
assert [e["text"].startswith(d["decision"]) for e, d in zip(find("li", class_="decision"), state["decisions"])] == [True]
errs = find("li", class_="error")
assert len(errs) == len(state["errors"]) and any("token refresh failed </li>" in e["text"] for e in errs)
tasks = find("li", class_="task")
assert [t["attrs"]["data-status"] for t in tasks] == [t["status"] for t in state["tasks"]], tasks

# tokens over time, drawn and in a table
tok = find("section", id="tokens")[0]
chart = inside(tok, "svg", class_="chart")
assert chart and chart[0]["attrs"].get("role") == "img"
circles = inside(chart[0], "circle")
rows = inside(tok, "tr")[1:]
assert len(circles) == len(rows) >= 6, (len(circles), len(rows))
assert all(inside(c, "title") for c in circles)
assert inside(rows[-1], "td")[-1]["text"] == str(used), inside(rows[-1], "td")[-1]["text"]
print("ok %d bytes" % len(raw))
EOF

test_expect_success 'the page holds the session: every section, its data, no script, no request' '
	git session html >page.html &&
	session_json refs/sessions/oauth >state.json &&
	python3 "$TRASH_DIRECTORY/check.py" page.html state.json $AGENT >check.out &&
	say "# $(cat check.out)"
'

test_expect_success 'hostile texts are shown as text: the prompt with <script> is escaped where it appears' '
	grep -F "P2 &lt;script&gt;alert(1)&lt;/script&gt; write login.c" page.html &&
	! grep -i "<script" page.html &&
	! grep -i "<img" page.html &&
	! grep -E "https?:" page.html &&
	test "$(grep -o "<pre" page.html | wc -l)" = "$(grep -o "</pre>" page.html | wc -l)"
'

test_expect_success 'the files and commit messages shown go through the redaction the session applies' '
	! grep -e Zq8vN3xLr7TbW2mK -e Hunter2Hunter2x page.html &&
	grep -F "+DEPLOY_TOKEN=[REDACTED:" page.html &&
	grep -F "password=[REDACTED:" page.html
'

test_expect_success '-o writes the same page atomically and says so; -q says nothing' '
	git session html -o out.html >said &&
	echo "wrote out.html" >expect && test_cmp expect said &&
	cmp page.html out.html &&
	git session html -q -o out.html >said && test_must_be_empty said &&
	! ls out.html.* 2>/dev/null
'

test_expect_success 'a bad revision: an error, non-zero, and the file left as it was' '
	cp out.html before.html &&
	test_expect_code 1 git session html no-such-session -o out.html 2>err &&
	grep "^error: unknown revision or session .no-such-session." err &&
	cmp before.html out.html &&
	test_expect_code 1 git session html -o missing-dir/page.html 2>err &&
	grep "^error:" err && test ! -e missing-dir
'

test_expect_success 'any revision show takes: a checkpoint earlier, its own numbers' '
	rev=$(git rev-parse refs/sessions/oauth~3) &&
	git session html oauth~3 >old.html &&
	grep -F "data-field=\"checkpoint\">$rev</dd>" old.html &&
	git session html $rev >old2.html && cmp old.html old2.html &&
	git session html SESSION_HEAD >head.html && cmp head.html page.html
'

test_expect_success '--all needs a folder; with one, an index linking every session page' '
	test_expect_code 129 git session html --all 2>err &&
	grep "^error: --all writes several files; name a folder with -o <dir>" err &&
	s start "Second" --id second --pause-current &&
	s note "a note" &&
	git session html --all -o site >said &&
	echo "wrote site/index.html and 2 session pages" >expect && test_cmp expect said &&
	ls site >got && printf "index.html\noauth.html\nsecond.html\n" >expect && test_cmp expect got &&
	python3 - <<-\EOF
	import re
	idx = open("site/index.html").read()
	links = re.findall(r"href=\"([^\"]+)\"", idx)
	assert sorted(links) == ["oauth.html", "second.html"], links
	assert "<script" not in idx and "Content-Security-Policy" in idx
	for l in links:
	    assert "<!doctype html>" in open("site/" + l).read()
	EOF
	git session html oauth >now.html && cmp site/oauth.html now.html
'

test_expect_success '--all: a session that cannot be read is said and marked, not linked; the others written' '
	git update-ref refs/sessions/broken HEAD &&
	test_expect_code 1 git session html --all -o site2 >said 2>err &&
	grep "^error: 1 session could not be written: the index marks it damaged" err &&
	echo "wrote site2/index.html and 2 session pages" >expect && test_cmp expect said &&
	ls site2 >got && printf "index.html\noauth.html\nsecond.html\n" >expect && test_cmp expect got &&
	grep -F "<tr class=\"session\"><td>broken</td><td></td><td data-field=\"status\">damaged</td>" site2/index.html &&
	! grep "href=\"broken" site2/index.html &&
	git update-ref -d refs/sessions/broken
'

test_expect_success '--all into a file, not a folder: one error, nothing written' '
	>not-a-folder &&
	test_expect_code 1 git session html --all -o not-a-folder 2>err &&
	echo "error: cannot create '"'"'not-a-folder'"'"': Not a directory" >expect &&
	test_cmp expect err && test_must_be_empty not-a-folder
'

test_expect_success '--all: a session named index has its own page, not the index' '
	s start "Index" --id index --pause-current &&
	git session html --all -o site3/ >said &&
	echo "wrote site3/index.html and 3 session pages" >expect && test_cmp expect said &&
	grep -F "<h1>Sessions</h1>" site3/index.html &&
	grep -F "<h1>index</h1>" site3/%69ndex.html &&
	grep -F "href=\"%2569ndex.html\"" site3/index.html &&
	git session switch oauth -q
'

test_expect_success 'a private key in a diff is redacted whole, not only its first line' '
	python3 - <<-\EOF &&
	import base64, hashlib
	body = base64.b64encode(b"".join(hashlib.sha256(b"key%d" % i).digest() for i in range(40))).decode()
	lines = [body[i:i + 64] for i in range(0, len(body), 64)]
	open("id_ed", "w").write("-----BEGIN OPENSSH PRIVATE KEY-----\n" + "\n".join(lines) +
	                         "\n-----END OPENSSH PRIVATE KEY-----\n")
	open("key-lines", "w").write("\n".join(l[8:24] for l in lines) + "\n")
	EOF
	git session resume oauth -q && c id_ed "deploy: a key" "" &&
	git session html >key.html &&
	grep -F "+[REDACTED:private-key]" key.html &&
	! grep -F -f key-lines key.html &&
	sed -i "$(($(wc -l <id_ed) - 3))s/^./x/" id_ed &&	# a hunk of the key with its END line, not its BEGIN
	c id_ed "deploy: the key again" "" &&
	git session html >key.html &&
	test $(grep -c "^ \[REDACTED:private-key\]" key.html) -ge 4 &&
	! grep -F -f key-lines key.html
'

test_expect_success 'a big file changed often: the diffs read at most 32 MiB of blobs, the rest noted' '
	python3 -c "open(\"big.txt\", \"w\").write(\"\".join(\"%07d a line of a big file\\n\" % i for i in range(200000)))" &&
	s file created big.txt &&
	for i in 1 2 3 4; do
		sed -i "$((i * 1000))s/.*/changed $i/" big.txt && s file modified big.txt || return 1
	done &&
	git session html >big.html &&
	python3 - <<-\EOF
	import re
	page = open("big.html").read()
	art = re.search(r"<article class=\"file\" id=\"file-big.txt\">.*?</article>", page, re.S).group(0)
	changes = art.split("<div class=\"change\">")[1:]
	assert len(changes) == 5, len(changes)
	shown = ["<pre class=\"diff\">" in c for c in changes]
	assert shown == [True, True, True, False, False], shown
	assert all("to make the page quickly" in c for c in changes[3:])
	EOF
'

test_done
