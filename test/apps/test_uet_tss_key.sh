#!/bin/sh
# uet-tss-key derive: a client key file written once, mode 0600, read
# back by uet-dump; bad input refused with a message and exit 2 (usage)
# or 1 (files).
#   test_uet_tss_key.sh UET_TSS_KEY UET_DUMP
set -u
tool=$1
dump=$2
name=uet-tss-key
. "$(dirname "$0")/check.sh"

# exit status and a message naming WHAT on stderr
refused() {
	want=$1
	what=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq "$want" ] && grep -q -- "$what" "$tmp/err"
}

printf '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\n' \
	>"$tmp/d.key"
chmod 600 "$tmp/d.key"
"$tool" derive --domain-key "$tmp/d.key" --client 7 --out "$tmp/c7.key" \
	>"$tmp/out" 2>&1
check "derive exits 0" test $? -eq 0
# the epoch of this key: tss_client's known answer (0xF314)
check "derive names the SSI and the epoch" grep -q "client 7: epoch 62228" \
	"$tmp/out"
check "client key file 0600" test "$(stat -c %a "$tmp/c7.key")" = 600
check "client key file: 188 hex digits" \
	test "$(tr -d '\n' <"$tmp/c7.key" | wc -c)" -eq 188
check "no key byte printed" sh -c "! grep -q 66b36dd8 '$tmp/out'"
check "an existing file is not replaced" \
	refused 1 exists "$tool" derive --domain-key "$tmp/d.key" \
	--client 7 --out "$tmp/c7.key"
check "SSI 0 refused" refused 2 "expected an SSI" "$tool" derive \
	--domain-key "$tmp/d.key" --client 0 --out "$tmp/x.key"
check "SSI not a number refused" refused 2 "expected an SSI" "$tool" \
	derive --domain-key "$tmp/d.key" --client 7x --out "$tmp/x.key"
check "missing --out refused" refused 2 "required" "$tool" derive \
	--domain-key "$tmp/d.key" --client 7
check "no command refused" refused 2 usage "$tool"
chmod 644 "$tmp/d.key"
check "a domain key others can read refused" refused 1 "chmod 600" \
	"$tool" derive --domain-key "$tmp/d.key" --client 8 --out "$tmp/x.key"
check "nothing written on refusal" test ! -e "$tmp/x.key"
chmod 600 "$tmp/d.key"
# uet-dump takes the client key file, and refuses a domain key as one
check "uet-dump --tss-client reads it" sh -c \
	"'$dump' --tss-client '7:$tmp/c7.key' --help >/dev/null"
check "uet-dump --tss-client refuses a domain key" refused 2 \
	"tss-client" "$dump" --tss-client "7:$tmp/d.key" "$tmp/none.pcap"
check "uet-dump --tss-server needs --tss-key" refused 2 "tss-server" \
	"$dump" --tss-server "$tmp/none.pcap"
check "uet-dump --tss-server with --tss-cluster refused" refused 2 \
	"one mode" "$dump" --tss-server --tss-cluster 0 --tss-key \
	"7:$tmp/d.key" "$tmp/none.pcap"
exit $fail
