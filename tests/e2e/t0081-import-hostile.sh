#!/bin/sh
test_description='import and export of hostile files: refused whole before anything is written, nothing written outside -o'
. ./lib.sh

FX="$TEST_DIRECTORY/fixtures/real/maestro-flow"

test_expect_success 'setup' '
	git commit -q --allow-empty -m init
'

test_expect_success 'a file whose session is archived here refuses the import before the others are written' '
	printf "{\"session_id\": \"WFS-kept\", \"status\": \"completed\", \"phases\": {\"plan\": \"completed\"}}\n" >kept.json &&
	git session import -q --format ccw kept.json &&
	git session archive WFS-kept &&
	printf "{\"session_id\": \"WFS-one\", \"status\": \"active\", \"phases\": {\"plan\": \"pending\"}}\n" >one.json &&
	printf "{\"session_id\": \"WFS-two\", \"status\": \"active\", \"phases\": {\"plan\": \"pending\"}}\n" >two.json &&
	printf "{\"session_id\": \"WFS-kept\", \"status\": \"active\", \"phases\": {\"plan\": \"pending\"}}\n" >three.json &&
	git for-each-ref >before &&
	test_expect_code 1 git session import --format ccw one.json two.json three.json 2>err &&
	grep "^error: three.json: session .WFS-kept. is archived here" err &&
	git for-each-ref >after &&
	test_cmp before after
'

test_done
