#!/bin/sh
test_description='redaction: every secret shape, in transcripts (JSON-encoded, nested, escaped), prompts and notes, stays out of git, and a stored transcript line parses wherever its source did'
. ./lib.sh

SID=5e5e5e5e-aaaa-bbbb-cccc-000000000058
T="$HOME/.claude/projects/repo/$SID.jsonl"
AGENT=claude-5e5e5e5e

ev () {
	printf '%s' "$2" | git-session hook claude-code "$1" >ev.out 2>ev.err &&
	hook_stdout_ok "$1" ev.out &&
	test_must_be_empty ev.err
}
all_objects () { git cat-file --batch-all-objects --batch; }

# The secrets (one a line, in secrets.txt: none may be in any object) and
# the texts that hold them (texts.json), built with a JSON encoder.
cat >"$TRASH_DIRECTORY/gen.py" <<'EOF'
import json, sys
hex64 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
hex128 = "4bd5f1c2a9e8b7d6c5f4e3d2c1b0a9f8e7d6c5b4a392817062f5e4d3c2b1a09f" \
         "8e7d6c5b4a3928170aabbccddeeff00112233445566778899aabbccddeeff0012"
bearer = "a94a8fe5ccb19ba61c4c0873d391e987982fbbd3"
django = "django-insecure-k7#x@9!zq(2)m&w^p3+v$r8*t-y4=u5%s6"
pem = ("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA75PEMSECRETLINEabc\n"
       "Zq8Lm2Rt4Vw7Ky1Bn5Hj3Gf6Dc0SaPEM2\nPEMx9=\n-----END RSA PRIVATE KEY-----")
pgp = ("-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF0PGPSECRETLINEoneABCDEFGHIJKLMNOP\n"
       "Qx7Rm2Lt4Vw9Ky1Bn5Hj3Gf6Dc0SaPGP2\n=PgQ7\n-----END PGP PRIVATE KEY BLOCK-----")
ssh = ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUSSHSECRET\n"
       "-----END OPENSSH PRIVATE KEY-----")
# (secret, text that holds it)
cases = [
    ("AKIAIOSFODNN7SECRET1", "aws:\nAKIAIOSFODNN7SECRET1"),
    ("abc123SECRETvalue", '{"api_key": "abc123SECRETvalue", "n": 1}'),
    ("hunter2SECRET", '{"password":"hunter2SECRET"}'),
    ("ghp_0123456789abcdefghijABCDEFGHIJ058058", 'say "ghp_0123456789abcdefghijABCDEFGHIJ058058"'),
    ("glpat-xYz0123456789abcdef58", "token glpat-xYz0123456789abcdef58"),
    ("npm_abcdefghijklmnopqrstuvwxyz0123456758", "//registry/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456758"),
    ("xoxb-123456789012-abcdefghij58", "slack\txoxb-123456789012-abcdefghij58"),
    ("AIzaSyA1234567890abcdefghijklmnopqrst58", "key=AIzaSyA1234567890abcdefghijklmnopqrst58"),
    ("sk-ant-api03-abcdefghijklmnopqrstuv58", "ANTHROPIC_API_KEY is sk-ant-api03-abcdefghijklmnopqrstuv58"),
    ("sk_live_abcdefghijklmnop5858", "stripe sk_live_abcdefghijklmnop5858"),
    ("eyJzdWIiOiIxMjM0NTY3ODkwIn0", "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"),
    ("MIIEpAIBAAKCAQEA75PEMSECRETLINE", "key:\n" + pem + "\nend"),
    ("PEMx9=", pem),
    ("PGPSECRETLINEone", "armoured:\n" + pgp + "\n"),
    ("=PgQ7", pgp),
    ("SSHSECRET", ssh),
    ("p@ssW0rd/x", "git clone https://alice:p@ssW0rd/x@git.example.com/r.git"),
    ("Sup3rS3cretDB", "DB_PASSWORD=Sup3rS3cretDB"),
    (hex64, "ENCRYPTION_KEY=" + hex64),
    (hex128, "SECRET_KEY_BASE=" + hex128),
    (hex128[:40], "production:\n  secret_key_base: " + hex128),
    (bearer, "curl -H 'Authorization: Bearer " + bearer + "' https://api"),
    ("k7#x@9!zq(2)m&w", "SECRET_KEY = '" + django + "'"),
    ("u5%s6", "SECRET_KEY=" + django),
    ("CurlPassw0rd", "curl -u alice:CurlPassw0rd https://x"),
    ("MyS3cretPw", "mysql -u root -pMyS3cretPw app"),
    ("MyOtherPw9", "mysqldump --password=MyOtherPw9 app"),
    ("Zx8Qp2Lm9Rt4Vw7Ky1Bn5Hj3Gf6Dc58", "rand Zx8Qp2Lm9Rt4Vw7Ky1Bn5Hj3Gf6Dc58"),
    ("TabSecret9", "conf:\n\tpassword: TabSecret9\n"),
    ("YamlSecret7", "db:\n  password: \"YamlSecret7\""),
]
kept = ["function getUserAccountById2FromCache3Layer() {", "const token = getToken(userId);",
        "The secret: tests must run", "if (password == other) {", "password_hash = bcrypt(pw)",
        "tokenizer: bert", "max_tokens: 4096", "commit 3f1c2a9e8b7d6c5f4e3d2c1b0a9f8e7d6c5b4a39",
        "id 123e4567-e89b-12d3-a456-426614174000", "golang.org/x/net v0.0.0-20191109021931-daa7c04131f5"]
secrets = [s for s, _ in cases] + ["StructPassw0rd", "StructTok3n", "BrokenPassw0rd", "ListSecret58", "sk_live_listlistlist5858"]
texts = [t for _, t in cases]

lines = []
for t in texts:
    lines.append({"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_01A09q90qw90lq917835lq9X", "content": t}]}})
    lines.append({"type": "assistant", "message": {"role": "assistant", "content": [
        {"type": "text", "text": "Found it:\n" + t + "\nDone."}]}})
    lines.append({"type": "user", "message": {"role": "user", "content": t}})
    lines.append({"type": "assistant", "message": {"content": [{"type": "tool_use", "name": "Bash",
        "input": {"command": t, "env": {"list": [t, {"deep": [t, 1, None]}]}}}]}})
    # a file the agent read, itself JSON: the text escaped twice
    lines.append({"type": "user", "message": {"content": [{"type": "tool_result",
        "content": json.dumps({"config": t, "nested": [t]})}]}})
lines.append({"type": "assistant", "message": {"content": [{"type": "tool_use", "name": "Deploy",
    "input": {"password": "StructPassw0rd", "DEPLOY_TOKEN": "StructTok3n",
              "headers": {"Authorization": "Bearer " + bearer}, "keys": ["sk_live_listlistlist5858"]}}]}})
with open("transcript.jsonl", "w") as f:
    for i, l in enumerate(lines):
        if i == 3:
            f.write(json.dumps(l, indent=None, separators=(",", ":")) + "\n")
        else:
            f.write(json.dumps(l) + "\n")
    f.write('{"broken": "password=BrokenPassw0rd and \\"token\\": \\"ListSecret58\\"\n')
    f.write(json.dumps({"type": "assistant", "message": {"content": [{"type": "text", "text": "\n".join(kept)}]}}) + "\n")
with open("secrets.txt", "w") as f:
    f.write("\n".join(secrets) + "\n")
with open("kept.txt", "w") as f:
    f.write("\n".join(kept) + "\n")
with open("texts.json", "w") as f:
    json.dump(texts, f)
EOF

test_expect_success 'setup: a session and the agent attached' '
	python3 "$TRASH_DIRECTORY/gen.py" &&
	test_line_count -gt 100 transcript.jsonl &&
	git session start redaction --id red -q &&
	git config session.transcripts all &&
	ev SessionStart "{\"session_id\":\"$SID\",\"transcript_path\":\"$T\",\"source\":\"startup\"}"
'

test_expect_success 'prompts with every secret shape are stored redacted' '
	python3 -c "
import json
for i, t in enumerate(json.load(open(\"texts.json\"))):
    open(\"prompt.%02d\" % i, \"w\").write(json.dumps({\"session_id\": \"$SID\", \"transcript_path\": \"$T\",
        \"hook_event_name\": \"UserPromptSubmit\", \"prompt\": \"please look at this\\n\" + t}))
" &&
	for p in prompt.*
	do
		ev UserPromptSubmit "$(cat $p)" || return 1
	done &&
	session_json >s &&
	test "$(json_field s "len([n for n in d[\"notes\"] if n[\"text\"].startswith(\"please look\")])")" = \
		"$(ls prompt.* | wc -l)"
'

test_expect_success 'notes with every secret shape are stored redacted' '
	python3 -c "
import json
for i, t in enumerate(json.load(open(\"texts.json\"))):
    open(\"note.%02d\" % i, \"w\").write(\"a note\\n\" + t + \"\\n\")
" &&
	for n in note.*
	do
		git session note -F $n -q || return 1
	done
'

test_expect_success 'a turn whose transcript holds them all: JSON-encoded, nested, escaped twice, after \n' '
	mkdir -p "${T%/*}" &&
	cp transcript.jsonl "$T" &&
	ev Stop "{\"session_id\":\"$SID\",\"transcript_path\":\"$T\",\"stop_hook_active\":false}" &&
	git cat-file -p SESSION_HEAD:transcripts/$AGENT/000/000001 >part &&
	test_line_count = $(wc -l <transcript.jsonl) part &&
	grep -q "REDACTED:private-key" part &&
	grep -q "REDACTED:django-secret-key" part &&
	grep -q "REDACTED:url-password" part
'

test_expect_success 'no secret is in any object git holds' '
	all_objects >objects &&
	while read -r secret
	do
		! grep -a -q -F -e "$secret" objects || { echo "stored: $secret"; return 1; }
	done <secrets.txt
'

test_expect_success 'every stored line parses as JSON wherever its source line did, and the rest is intact' '
	python3 -c "
import json
src = open(\"transcript.jsonl\", \"rb\").read().split(b\"\\n\")
out = open(\"part\", \"rb\").read().split(b\"\\n\")
assert len(src) == len(out), (len(src), len(out))
def parses(b):
    try:
        json.loads(b)
        return True
    except ValueError:
        return False
bad = [i for i, (a, b) in enumerate(zip(src, out)) if a and parses(a) and not parses(b)]
assert not bad, bad
assert sum(1 for a in src if a and not parses(a)) == 1
last = json.loads(out[-2])[\"message\"][\"content\"][0][\"text\"]
assert last.split(\"\\n\") == open(\"kept.txt\").read().split(\"\\n\")[:-1], last
assert b\"toolu_01A09q90qw90lq917835lq9X\" in out[0], out[0]
" &&
	git session transcript --raw --agent $AGENT >raw &&
	test_cmp part raw
'

test_expect_success 'what is kept is kept in prompts and notes too' '
	git session note -F kept.txt -q &&
	session_json >s &&
	json_field s "json.dumps(d[\"notes\"][-1][\"text\"])" >note &&
	python3 -c "
import json, sys
t = json.loads(open(\"note\").read())
assert t.rstrip(\"\\n\") == open(\"kept.txt\").read().rstrip(\"\\n\"), t
"
'

test_expect_success 'by default only the conversation is kept: redacted too, and it reads back' '
	git config --unset session.transcripts &&
	sid2=6f6f6f6f-aaaa-bbbb-cccc-000000000059 &&
	T2="${T%/*}/$sid2.jsonl" &&
	cp transcript.jsonl "$T2" &&
	echo "{\"type\":\"queue-operation\",\"content\":\"password=QueuedSecret1\"}" >>"$T2" &&
	ev SessionStart "{\"session_id\":\"$sid2\",\"transcript_path\":\"$T2\",\"source\":\"startup\"}" &&
	ev Stop "{\"session_id\":\"$sid2\",\"transcript_path\":\"$T2\",\"stop_hook_active\":false}" &&
	git cat-file -p SESSION_HEAD:transcripts/claude-6f6f6f6f/000/000001 >part2 &&
	test $(wc -l <part2) = $(($(wc -l <"$T2") - 2)) &&
	! grep -q "\"broken\"" part2 && ! grep -q queue-operation part2 &&
	all_objects >objects &&
	while read -r secret
	do
		! grep -a -q -F -e "$secret" objects || { echo "stored: $secret"; return 1; }
	done <secrets.txt &&
	git session transcript --agent claude-6f6f6f6f >view &&
	grep -F "tokenizer: bert" view &&
	grep "^  → Deploy" view &&
	! grep -F "REDACTED" view | grep -F -e StructPassw0rd -e hunter
'

test_done
