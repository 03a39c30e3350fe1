# Credentials in tests (secrets, team_stores, sid_team_stores): passwords no file or message could
# hold by chance, every output captured, and checks that none holds the password.

# password WORD: a credential no file or message could hold by chance.
password() { printf '%s%04x%04x%04x' "$1" $$ $RANDOM $RANDOM; }

# out NAME CMD...: runs CMD with its stdout and stderr in $TEST_DIR/out/NAME (every output the
# test looks through for a password); CMD's exit status. shown NAME: that output.
out() {
  local name=$1
  shift
  mkdir -p "$TEST_DIR/out"
  "$@" > "$TEST_DIR/out/$name" 2>&1
}
shown() { cat "$TEST_DIR/out/$1"; }

# expect_not_shown PASSWORD...: no captured output holds any PASSWORD.
expect_not_shown() {
  local pw hits
  [ -n "$(ls "$TEST_DIR/out")" ] || fail "no output captured"
  for pw in "$@"; do
    hits=$(grep -lF -- "$pw" "$TEST_DIR"/out/* | xargs -r -n1 basename | tr '\n' ' ')
    [ -z "$hits" ] || fail "the password is in the output of: $hits"
  done
}
