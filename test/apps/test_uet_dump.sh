#!/bin/sh
# End-to-end test of uet-dump on generated fixtures.
#   test_uet_dump.sh GEN_PCAP UET_DUMP
set -u
gen=$1
dump=$2
name=uet-dump
. "$(dirname "$0")/check.sh"

"$gen" "$tmp/all.pcap" || { echo "FAIL gen_pcap"; exit 1; }
"$gen" --raw "$tmp/raw.pcap" || { echo "FAIL gen_pcap --raw"; exit 1; }
"$gen" --list >"$tmp/list" || { echo "FAIL gen_pcap --list"; exit 1; }

"$dump" "$tmp/all.pcap" >"$tmp/text" 2>"$tmp/text.err"
check "text mode exits 0" test $? -eq 0
"$dump" --json "$tmp/all.pcap" >"$tmp/json" 2>"$tmp/json.err"
check "json mode exits 0" test $? -eq 0
"$dump" "$tmp/raw.pcap" >"$tmp/raw" 2>/dev/null
check "DLT_RAW file exits 0" test $? -eq 0

# Every header type name, control type, next header and SES form.
for name in RUD_REQ ROD_REQ RUDI_REQ RUDI_RESP UUD_REQ ACK ACK_CC ACK_CCX \
	NACK NACK_CCX RUD_CC_REQ ROD_CC_REQ \
	"CP NOOP" "CP ACK_REQ" "CP CLEAR" "CP CLEAR_REQ" "CP CLOSE" \
	"CP CLOSE_REQ" "CP PROBE" "CP CREDIT" "CP CREDIT_REQ" \
	"CP NEGOTIATION" \
	next=NONE next=REQUEST_SMALL next=REQUEST_MEDIUM next=REQUEST_STD \
	next=RESPONSE next=RESPONSE_DATA next=RESPONSE_DATA_SMALL \
	"SEND fmt=std som" "SEND fmt=std eom" "WRITE fmt=medium" \
	"READ fmt=small" "WRITE fmt=small" DATAGRAM_SEND DEFERRABLE_SEND \
	DEFERRABLE_RTR "ATOMIC fmt" FETCHING_ATOMIC CSWAP RENDEZVOUS_SEND \
	eager_len= TAGGED_SEND header_data= "RESPONSE opcode=RESPONSE" \
	"RESPONSE_DATA opcode=" "RESPONSE_DATA_SMALL opcode=" \
	cc=NSCC cc=CREDIT ccx_state= nccx_state= "flags=[AR,SYN]" \
	" native " "[2001:db8::1]" "vlan=100" "2001:db8::1 > 2001:db8::2 native"
do
	check "text shows '$name'" grep -qF -- "$name" "$tmp/text"
done

# Each corrupt fixture is MALFORMED at its layer with a reason; each
# non-UET one is noted as such.
grep ' eth$' "$tmp/list" >"$tmp/list.eth"
n=0
while read -r fx kind layer code framing; do
	n=$((n + 1))
	line=$(sed -n "${n}p" "$tmp/text")
	case $kind in
	malformed)
		check "$fx: MALFORMED layer=$layer code=$code" \
			sh -c 'printf "%s\n" "$1" | grep -q "MALFORMED layer=$2 code=$3 reason=\"[^\"]"' \
			sh "$line" "$layer" "$code"
		;;
	not_uet)
		check "$fx: NOT-UET" sh -c 'printf "%s\n" "$1" | grep -q "NOT-UET "' sh "$line"
		;;
	*)
		check "$fx: parsed" sh -c 'printf "%s\n" "$1" | grep -q "| payload [0-9]*$"' sh "$line"
		;;
	esac
done <"$tmp/list.eth"
eth=$(grep -c . "$tmp/list.eth")
malformed=$(grep -c " malformed " "$tmp/list.eth")
notuet=$(grep -c " not_uet " "$tmp/list.eth")
# malformed before the UDP port (or cut inside the UDP header): whether it
# is UET cannot be told
undet=$(grep -cE " malformed (eth|ip) | malformed udp truncated " "$tmp/list.eth")
check "one text line per packet ($eth)" test "$(grep -c . "$tmp/text")" -eq "$eth"
check "summary line on stderr" \
	grep -q "^uet-dump: $eth packets, $((eth - notuet - undet)) uet, $malformed malformed, $notuet not uet, $undet undetermined$" "$tmp/text.err"
check "raw IP packet parsed" grep -q "| ACK next=NONE" "$tmp/raw"

# JSON: every line parses, errors carry "error", non-UET carry uet=false.
check "json lines parse" python3 -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
objs = [json.loads(l) for l in lines]
assert len(objs) == int(sys.argv[2]), len(objs)
assert sum("error" in o for o in objs) == int(sys.argv[3])
assert sum(o["uet"] is False for o in objs) == int(sys.argv[4]) + int(sys.argv[5])
assert all(o["error"] and o["error_layer"] for o in objs if "error" in o)
assert any(o.get("pds", {}).get("type") == "ACK_CCX" for o in objs)
' "$tmp/json" "$eth" "$malformed" "$notuet" "$undet"

# Empty and cut frames are not labelled UET: 0 bytes, 10, 30, 40 bytes and
# a capture cut at 40 bytes of a UET frame (it was "uet": true).
"$gen" --cut "$tmp/cut.pcap" || { echo "FAIL gen_pcap --cut"; exit 1; }
"$dump" --json "$tmp/cut.pcap" >"$tmp/cut.json" 2>"$tmp/cut.err"
check "cut frames: exit 0" test $? -eq 0
check "cut frames: uet false, undetermined, with the error" python3 -c '
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1]).read().splitlines()]
assert [o["caplen"] for o in objs] == [0, 10, 30, 40, 40], objs
for o in objs:
    assert o["uet"] is False and "undetermined" in o["reason"], o
    assert o["error_code"] == "truncated" and o["error_layer"] in ("eth", "ip"), o
' "$tmp/cut.json"
check "cut frames: summary" grep -q "^uet-dump: 5 packets, 0 uet, 5 malformed, 0 not uet, 5 undetermined$" "$tmp/cut.err"

# TSS-protected frames: the TSS header and the protected sizes; a frame
# cut inside its ICV or with a reserved bit set is malformed.
"$gen" --tss "$tmp/tss.pcap" || { echo "FAIL gen_pcap --tss"; exit 1; }
"$dump" "$tmp/tss.pcap" >"$tmp/tss" 2>"$tmp/tss.err"
check "tss: exit 0" test $? -eq 0
check "tss: header without SSI" \
	sh -c 'sed -n 1p "$1" | grep -q "| TSS sdi=0x42 an=1 epoch=3 tsc=7 encrypted=100 icv=16$"' sh "$tmp/tss"
check "tss: header with SSI, native IPv6" \
	sh -c 'sed -n 2p "$1" | grep -q " native .*| TSS sdi=0x123456 an=0 ssi=0xa000001 epoch=0 tsc=1 encrypted=100 icv=16$"' sh "$tmp/tss"
check "tss: cut in the ICV is truncated" \
	sh -c 'sed -n 3p "$1" | grep -q "MALFORMED layer=pds code=truncated"' sh "$tmp/tss"
check "tss: reserved bit" \
	sh -c 'sed -n 4p "$1" | grep -q "MALFORMED layer=pds code=reserved"' sh "$tmp/tss"
check "tss: summary" grep -q "^uet-dump: 4 packets, 4 uet, 2 malformed, 0 not uet, 0 undetermined$" "$tmp/tss.err"
"$dump" --json "$tmp/tss.pcap" >"$tmp/tss.json" 2>/dev/null
check "tss: json" python3 -c '
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1]).read().splitlines()]
t = objs[0]["tss"]
assert t == {"type": "TSS", "sdi": 66, "an": 1, "epoch": 3, "tsc": 7, "encrypted": 100, "icv": 16}, t
assert objs[1]["tss"]["ssi"] == 0x0A000001, objs[1]
assert "error" in objs[2] and "error" in objs[3]
' "$tmp/tss.json"

# --count, usage errors and unreadable files.
check "--count 3 prints 3 lines" test "$("$dump" --count 3 "$tmp/all.pcap" 2>/dev/null | wc -l)" -eq 3
"$dump" "$tmp/missing.pcap" >/dev/null 2>"$tmp/err"
check "missing file exits 1" test $? -eq 1
check "missing file message" grep -q "missing.pcap" "$tmp/err"
printf 'this is not a capture file\n' >"$tmp/garbage.pcap"
"$dump" "$tmp/garbage.pcap" >/dev/null 2>"$tmp/err"
check "garbage file exits 1" test $? -eq 1
check "garbage file message" grep -q "uet-dump: " "$tmp/err"
"$dump" --no-such-flag "$tmp/all.pcap" >/dev/null 2>&1
check "bad flag exits 2" test $? -eq 2
"$dump" >/dev/null 2>&1
check "no file exits 2" test $? -eq 2
"$dump" --count x "$tmp/all.pcap" >/dev/null 2>&1
check "bad --count exits 2" test $? -eq 2
"$dump" --tss-cluster 64 "$tmp/all.pcap" >/dev/null 2>"$tmp/err"
check "--tss-cluster without --tss-key exits 2" test $? -eq 2
check "... and says so" grep -q "no --tss-key" "$tmp/err"
"$dump" --tss-cluster x "$tmp/all.pcap" >/dev/null 2>&1
check "bad --tss-cluster exits 2" test $? -eq 2
"$dump" --tss-rekey 256 "$tmp/all.pcap" >/dev/null 2>"$tmp/err"
check "--tss-rekey without client/server keys exits 2" test $? -eq 2
check "... and says so" grep -q "client/server keys only" "$tmp/err"
"$dump" --tss-rekey 0 --tss-server "$tmp/all.pcap" >/dev/null 2>"$tmp/err"
check "--tss-rekey 0 exits 2" test $? -eq 2
check "... refused as a value" sh -c "grep -q -- '--tss-rekey: ' '$tmp/err' &&
	! grep -q 'client/server keys only' '$tmp/err'"
"$dump" --help >"$tmp/help" 2>&1
check "--help exits 0" test $? -eq 0
check "--help prints usage" grep -q "^usage: uet-dump" "$tmp/help"
"$dump" --version >"$tmp/version" 2>&1
check "--version exits 0" test $? -eq 0
check "--version names the tool and libpcap" grep -q "^uet-dump [0-9].* (libpcap version" "$tmp/version"

if [ $fail -ne 0 ]; then
	echo "test_uet_dump: FAILED"
	exit 1
fi
echo "test_uet_dump: all checks passed"
