# CPU time of processes and of the throwaway servers, shared by the benchmarks that report it.
# Source it, with tp_work set (the servers' data directories are $tp_work/NAME):
#   cpu_seconds PID     CPU time (user and system) the process has used so far, in seconds; 0 when it is gone
#   server_ticks NAME   CPU time, in clock ticks, of server NAME: its postmaster's children now (backends,
#                       walsenders, autovacuum, the checkpointer) and those that exited (the snapshot's
#                       readers, the walsenders of stopped pipelines: the postmaster reaps their time)
#   server_cpu NAME     the same in seconds
#   await_quiet         waits until the servers source and target use under 5 % of a core over a second
#                       (at most QUIET_MAX_SECONDS, default 300; QUIET=0 skips it), and says so on stderr

# Fields 14 and 15 of /proc/PID/stat (16 and 17 for reaped children), counted after the command's
# closing parenthesis, which may hold spaces.
cpu_seconds() {
  awk -v hz="$(getconf CLK_TCK)" '{sub(/.*\) /, ""); printf "%.2f", ($12 + $13) / hz}' "/proc/$1/stat" 2>/dev/null || echo 0
}

server_ticks() {
  local postmaster child total
  postmaster="$(head -1 "$tp_work/$1/postmaster.pid")"
  total="$(awk '{sub(/.*\) /, ""); print $14 + $15}' "/proc/$postmaster/stat")"
  for child in $(pgrep -P "$postmaster"); do
    total=$(( total + $(awk '{sub(/.*\) /, ""); print $12 + $13}' "/proc/$child/stat" 2>/dev/null || echo 0) ))
  done
  echo "$total"
}

server_cpu() {
  echo "scale=2; $(server_ticks "$1") / $(getconf CLK_TCK)" | bc
}

# After a backlog is written, every paused pipeline's walsender decodes it, and autovacuum and the
# checkpointer follow the writes: a run started meanwhile shares the two cores with work that is not
# its own, while the next one finds it done. So each run starts on quiet servers, all on one footing.
await_quiet() {
  [ "${QUIET:-1}" = 1 ] || return 0
  local hz start before after
  hz="$(getconf CLK_TCK)"
  start="$(date +%s.%N)"
  before=$(( $(server_ticks source) + $(server_ticks target) ))
  while :; do
    sleep 1
    after=$(( $(server_ticks source) + $(server_ticks target) ))
    if (( after >= before && (after - before) * 20 < hz )); then break; fi
    if (( $(echo "$(date +%s.%N) - $start > ${QUIET_MAX_SECONDS:-300}" | bc) )); then
      echo "  (servers still busy after ${QUIET_MAX_SECONDS:-300} s; going on)" >&2; break
    fi
    before="$after"
  done
  echo "  servers quiet after $(printf '%.0f' "$(echo "$(date +%s.%N) - $start" | bc)") s" >&2
}
