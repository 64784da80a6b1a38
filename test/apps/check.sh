# Sourced by the shell tests of test/apps after they set $name: a scratch
# directory $tmp, removed at exit, and check DESCRIPTION COMMAND..., which
# reports the command's outcome and counts a failure in $fail.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/$name-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

check() {
	desc=$1
	shift
	if "$@"; then
		echo "ok   $desc"
	else
		echo "FAIL $desc"
		fail=1
	fi
}
