#!/bin/sh
# A config of 1,000 PCRE2 patterns (300 excludes, 300 ignore entries with a path and a name each,
# 100 policies), none of which matches the project's fixtures, on stdout: run-patterns.sh checks
# what it costs in CPU time, `make bench` how much wall time it adds.
awk 'BEGIN {
	print "exclude:"
	for (i = 0; i < 300; i++) printf "  - '\''^vendor%d/.*\\.ya?ml$'\''\n", i
	print "ignore:"
	for (i = 0; i < 300; i++) printf "  - rules: [rollout-deadlock]\n    path: '\''^legacy%d/'\''\n    name: '\''^tracker-%d-[a-z]+$'\''\n", i, i
	print "policies:"
	for (i = 0; i < 100; i++) printf "  - id: p%d\n    message: m%d\n    field: metadata.labels.l%d\n    forbid: '\''^bad%d(-[a-z]+)*$'\''\n", i, i, i, i
}'
