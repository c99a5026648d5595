#!/bin/sh
# stop.sh DIR [--kill] — stop the php-fpm and mariadbd that start.sh DIR started,
# by their pid files, and wait for them to exit. DIR itself is left for the
# caller to remove.
#
# SIGTERM (graceful) takes 0.1–2 s per daemon on a busy 2-core machine (php-fpm
# gives its children up to 1 s; mariadbd flushes InnoDB). --kill sends SIGKILL
# right away: fine when DIR is thrown away next.
DIR=${1:?usage: stop.sh DIR [--kill]}
sig=TERM
[ "${2:-}" = --kill ] && sig=KILL

# Gone, or a zombie waiting for init to reap it (kill -0 succeeds on zombies).
alive() {
	st=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
	case $st in Z*) return 1 ;; esac
	return 0
}

rc=0
for name in php-fpm mysql; do
	f=$DIR/$name.pid
	[ -s "$f" ] || continue
	pid=$(cat "$f")
	alive "$pid" || continue
	target=$pid
	# php-fpm daemonizes with setsid(): master and pool children share a process
	# group whose id is the master's pid. Signal the group, or a SIGKILLed
	# master leaves its children running (and holding the socket).
	# mariadbd is not a group leader (its group is whoever ran start.sh): only the pid.
	if [ "$(ps -o pgid= -p "$pid" | tr -d ' ')" = "$pid" ]; then
		target=-$pid
	fi
	kill -s $sig -- "$target" 2>/dev/null
	i=0
	while alive "$pid"; do
		i=$((i + 1))
		if [ $i -gt 300 ]; then # 15 s
			echo "stop.sh: $name ($pid) still running, sending KILL" >&2
			kill -s KILL -- "$target" 2>/dev/null
			rc=1
			break
		fi
		sleep 0.05
	done
done
exit $rc
