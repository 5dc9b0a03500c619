#!/bin/sh
# mpsfix review on a real terminal: tmux runs it in a pane of a private
# server, the answers are single keys typed with `send-keys` (no Enter),
# and `capture-pane` reads the screen.  Every wait polls the screen with a
# time limit instead of sleeping a fixed time.  Covers answers y/n/a/s/q/?,
# colored hunks, review --commit, and ^C (exit 130, nothing written, the
# terminal mode restored), and a notebook (hunks of its cells' sources).
# Skipped, with the reason, when tmux is missing.
# Prints 'N passed, N failed'.
# usage: sh tests/t0310-review-tmux.sh [path/to/mpsfix]
. "$(dirname "$0")/test-lib.sh"
if ! command -v tmux >/dev/null 2>&1; then
	echo "skipped: tmux is not installed (Debian: apt-get install tmux)"
	test_done
fi
# one tmux server per scenario (a server being killed can take a new session with it)
servers=0
sock=
stop_all() {
	for s in "$tmp"/tmux.*.sock; do [ -S "$s" ] && tmux -S "$s" kill-server 2>/dev/null; done
}
test_at_exit=stop_all
# the pane stays when its program ends, so its last screen can be read
printf 'set-option -g remain-on-exit on\n' >"$tmp/tmux.conf"

isolate
git config --global init.defaultBranch main

# start CMD: a new server whose one pane runs the shell command CMD (the pane stays after it ends)
start() {
	[ -n "$sock" ] && tmux -S "$sock" kill-server 2>/dev/null
	servers=$((servers + 1))
	sock=$tmp/tmux.$servers.sock
	tmux -S "$sock" -f "$tmp/tmux.conf" new-session -d -s t -x 200 -y 60 "$1"
}
screen() { tmux -S "$sock" capture-pane -p -t t -S -1000 "$@"; }
key() { tmux -S "$sock" send-keys -t t "$@"; }

# wait_for TEXT [SECONDS]: poll the screen until TEXT shows (10 s by default)
wait_for() {
	tries=$(( ${2:-10} * 20 ))
	while [ "$tries" -gt 0 ]; do
		if screen >"$tmp/screen" 2>/dev/null && grep -qF -- "$1" "$tmp/screen"; then return 0; fi
		sleep 0.05
		tries=$((tries - 1))
	done
	return 1
}
# step NAME TEXT: wait for TEXT, a test of its own
step() {
	if wait_for "$2"; then ok "$1"; else fail "$1" "not on the screen: $2" "$(tail -15 "$tmp/screen")"; fi
}
count_on_screen() { screen | grep -cF -- "$1"; }

q1='(1/2) MPS006: apply this fix? [y]es [n]o [a]ll for this rule [s]kip rule [q]uit [?]'
q2='(2/2) MPS006: apply this fix?'
q3='(1/1) MPS101: apply this fix?'
q4='(1/1) MPS104: apply this fix?'

# --- 1. y, n, s, y: each answer one key, without Enter ------------------------------------
mkrepo "$tmp/r1"
start "cd '$tmp/r1' && '$bin' review --unsafe-fixes; echo EXIT=\$?"
step "review: the first fix with its rule, message and hunk" "$q1"
if grep -qF 'train.py:32:18: MPS006 to-mps-non-blocking: non_blocking=True copies to MPS can corrupt data' "$tmp/screen" &&
	grep -qF -- '-        images = images.to("mps", non_blocking=True)' "$tmp/screen" &&
	grep -qF -- '+        images = images.to("mps")' "$tmp/screen"; then ok "review: place, rule, message and hunk shown"
else fail "review: place, rule, message and hunk shown" "$(cat "$tmp/screen")"; fi
key y
step "review: y, then the next fix" "$q2"
key n
step "review: n, then the next rule" "$q3"
key s
step "review: s, then the next rule" "$q4"
key y
step "review: the summary" "4 files scanned, 2 fixes accepted, 2 declined, 2 files written (2 fixes), 2 findings left"
step "review: exit 1 (findings left)" "EXIT=1"
expect_eq "review: only the accepted fixes are written" \
	"$(cd "$tmp/r1" && git diff --stat | sed 's/ *|.*//' | head -2 | tr -d ' ' | tr '\n' ' '; grep -c 'non_blocking=True' train.py; grep -c pin_memory=True data.py)" \
	"device.py train.py 3
1"

# --- 2. ? and unknown keys, then q: nothing written -------------------------------------
mkrepo "$tmp/r2"
start "cd '$tmp/r2' && '$bin' review; echo EXIT=\$?"
step "help: the first question" "$q1"
key '?'
step "help: ? explains the answers" "a - apply this fix and every later fix of this rule"
key x
step "help: an unknown key is named" "unknown answer 'x'"
key q
step "quit: exit 1, findings left" "EXIT=1"
expect_eq "quit: nothing written" "$(cd "$tmp/r2" && git status --porcelain)" ""
# (the findings left are named after q, as commit names them; no question is asked)
if screen | grep -q 'MPS101: apply this fix?'; then fail "quit: nothing asked after q" "$(screen)"; else ok "quit: nothing asked after q"; fi

# --- 3. colors follow --color ----------------------------------------------------------------
mkrepo "$tmp/r3"
start "cd '$tmp/r3' && '$bin' review --color always; echo EXIT=\$?"
step "color: the question" "$q1"
# tmux redraws what the program drew: red removed lines, green added lines
if screen -e | grep -F -- '-        images' | grep -q '\[31m' && screen -e | grep -F -- '+        images' | grep -q '\[32m'
then ok "color: removed lines red, added lines green"; else fail "color: removed lines red, added lines green" "$(screen -e | head -20)"; fi
key q
step "color: done" "EXIT="
start "cd '$tmp/r3' && '$bin' review --color never; echo EXIT=\$?"
step "no color: the question" "$q1"
if screen -e | grep -F -- '-        images' | grep -q '\[3[12]m'; then fail "no color: plain hunks" "$(screen -e | head -20)"
else ok "no color: plain hunks"; fi
key q
step "no color: done" "EXIT="

# --- 4. review --commit: the accepted fixes, one commit per rule ------------------------------
mkrepo "$tmp/r4"
start "cd '$tmp/r4' && '$bin' review --commit --signoff; echo EXIT=\$?"
step "commit: the first question" "$q1"
key a
step "commit: a answers the rest of the rule" "$q3"
if [ "$(count_on_screen "$q2")" = 0 ]; then ok "commit: a asks no more of the rule"; else fail "commit: a asks no more of the rule" "$(screen)"; fi
key n
step "commit: the commits are printed" "[main "
step "commit: exit 1 (findings left)" "EXIT=1"
expect_eq "commit: one commit, for the rule with accepted fixes" \
	"$(cd "$tmp/r4" && git log --format=%s -2 | cut -c1-34; git status --porcelain)" \
	"mpsfix: MPS006 to-mps-non-blocking
demo project"
expect_eq "commit: signed off" "$(cd "$tmp/r4" && git log -1 --format=%B | git interpret-trailers --parse | tail -1)" \
	"Signed-off-by: Ada Lovelace <ada@example.com>"

# review --commit refuses a dirty file before asking anything
(cd "$tmp/r4" && echo '# mine' >>data.py)
start "cd '$tmp/r4' && '$bin' review --commit; echo EXIT=\$?"
step "commit: a dirty file is refused before the questions" "data.py (unstaged changes)"
step "commit: ... with exit 2" "EXIT=2"
if [ "$(count_on_screen 'apply this fix?')" = 0 ]; then ok "commit: ... and nothing asked"; else fail "commit: ... and nothing asked" "$(screen)"; fi

# --- 5. ^C: exit 130, nothing written, the terminal as it was ---------------------------------
mkrepo "$tmp/r5"
start "env PS1='shell> ' sh"
step "interrupt: a shell" "shell>"
key "cd '$tmp/r5' && '$bin' review; echo EXIT=\$?" Enter
step "interrupt: the first question" "$q1"
key y
step "interrupt: the second question" "$q2"
key C-c
step "interrupt: exit 130" "EXIT=130"
expect_eq "interrupt: nothing written, not even the accepted fix" "$(cd "$tmp/r5" && git status --porcelain)" ""
key "stty -a | tr ' ' '\\n' | grep -x -e icanon -e echo -e -icanon -e -echo | tr '\\n' ' '; echo :MODE" Enter
step "interrupt: the terminal is back in canonical mode with echo" "icanon echo :MODE"

# --- 6. a notebook: each fix as the cell's source, then written into the notebook --------------
mkdir -p "$tmp/r6"
cp fixtures/notebook/train.ipynb "$tmp/r6/"
start "cd '$tmp/r6' && '$bin' review --select MPS001,MPS101 train.ipynb; echo EXIT=\$?"
step "notebook: the first question" "(1/1) MPS001: apply this fix?"
if grep -qF 'train.ipynb:cell 3:2:13: MPS001 std-mean:' "$tmp/screen" &&
	grep -qF -- '-std, mean = torch.std_mean(x, dim=0)' "$tmp/screen" &&
	grep -qF -- '+std, mean = torch.std_mean(x, dim=0) if x.device.type != "mps" else (torch.std(x, dim=0), torch.mean(x, dim=0))' "$tmp/screen" &&
	! grep -qF '"source"' "$tmp/screen"; then ok "notebook: the cell and the hunk of its source, no JSON"
else fail "notebook: the cell and the hunk of its source, no JSON" "$(cat "$tmp/screen")"; fi
key y
step "notebook: the next rule" "(1/1) MPS101: apply this fix?"
key y
step "notebook: the summary" "1 file scanned, 2 fixes accepted, 0 declined, 1 file written (2 fixes)"
got=$(changed_cells fixtures/notebook/train.ipynb "$tmp/r6/train.ipynb")
expect_eq "notebook: cells 3 and 5 written, the rest as it was" "$got" "True [3, 5]"

stop_all
test_done
