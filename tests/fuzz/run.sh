#!/bin/sh
# make fuzz: every libFuzzer harness for FUZZ_SECONDS each (default 60), seeded from fixtures/
# and, when present, the shared corpus; crashes are kept under build/fuzz/crashes/. Inputs that
# once crashed live in tests/fuzz/regressions/<harness>/ and run first, every time.
# The last line sums up: fuzz: N executions, no crash | CRASHED (harness …)
# Usage: run.sh SECONDS [SHARED]
set -u
cd "$(dirname "$0")/../.." || exit 2
secs=${1:-60}
shared=${2:-../shared}
out=build/fuzz
mkdir -p "$out/crashes"
total=0
crashed=
seed() { # harness, then find(1) arguments selecting its seed files
	h=$1
	shift
	mkdir -p "$out/seeds/$h"
	find "$@" -type f 2>/dev/null | while IFS= read -r f; do
		cp "$f" "$out/seeds/$h/$(printf '%s' "$f" | cksum | cut -d' ' -f1)"
	done
}
manifests() { # find arguments: YAML and JSON under fixtures/ and the shared corpus
	set -- fixtures
	[ -d "$shared/corpus" ] && set -- "$@" "$shared/corpus"
	printf '%s\n' "$@"
}
for h in manifests nodes pods pipeline; do
	seed "$h" $(manifests) \( -name '*.yaml' -o -name '*.yml' -o -name '*.json' \) -size -64k
done
seed config fixtures -name '.schedlint.y*ml'
# The pipeline with a config: each fixture's config, the mark, and its manifest (fuzz_pipeline.c).
find fixtures -name .schedlint.yaml | while IFS= read -r c; do
	m=$(dirname "$c")/manifest.yaml
	[ -f "$m" ] || continue
	{ cat "$c"; printf '\n#%%schedlint-manifest\n'; cat "$m"; } >"$out/seeds/pipeline/config-$(printf '%s' "$c" | cksum | cut -d' ' -f1)"
done
# Its dictionary: manifests' words, the config's, and the mark.
{ cat tests/fuzz/k8s.dict tests/fuzz/config.dict; printf '"\\x0a#%%schedlint-manifest\\x0a"\n'; } >"$out/pipeline.dict"
mkdir -p "$out/seeds/quantity"
n=0
for q in 0 1 250m 1.5Gi 16.5Gi 1e3 100Ki 7Ei 8Ei 1e400 0.5m 1n 0.0000000001 -1 +3 .5 5. 1E-3 12e6 lots; do
	n=$((n + 1))
	printf '%s' "$q" >"$out/seeds/quantity/q$n"
done
# Selectors as DeviceClasses and claims write them, and CEL's corners.
mkdir -p "$out/seeds/cel"
n=0
for c in 'device.driver == "gpu.nvidia.com"' \
	'device.attributes["gpu.nvidia.com"].productName.startsWith("NVIDIA A100")' \
	'device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("40Gi")) >= 0' \
	'device.attributes["dra.example.com"].model in ["a", "b"] || has(device.attributes["x"].y)' \
	'device.attributes["gpu.nvidia.com"].driverVersion.isGreaterThan(semver("1.2.3")) ? !false : 1u < 2' \
	"device.attributes['dra.example.com'].model.matches('(a+)+\$') && r'\\d' != b'\\x00' && -1.5e3 < .5" \
	'[1, 2,].all(x, x > 0) && {"a": 1}.size() == 1 && a.b{c: 1} != null && device.attributes[?"x"].`a-b`'; do
	n=$((n + 1))
	printf '%s' "$c" >"$out/seeds/cel/c$n"
done
# The language server's framing: a few messages as clients send them.
mkdir -p "$out/seeds/lsp"
printf 'Content-Length: 52\r\n\r\n{"jsonrpc":"2.0","id":1,"method":"shutdown","params":{}}' >"$out/seeds/lsp/m1"
printf 'Content-Length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}Content-Length: x\r\n\r\n' >"$out/seeds/lsp/m2"
printf 'a\r\nb\rc\n\303\251\344\270\255\360\237\230\200\n' >"$out/seeds/lsp/text"
printf 'file:///a%%20b/c.yaml' >"$out/seeds/lsp/uri"
for h in manifests nodes pods pipeline config quantity lsp cel; do
	bin=$out/fuzz-$h
	dict=tests/fuzz/k8s.dict
	[ "$h" = config ] && dict=tests/fuzz/config.dict
	[ "$h" = pipeline ] && dict=$out/pipeline.dict
	[ "$h" = lsp ] && dict=tests/fuzz/lsp.dict
	[ "$h" = cel ] && dict=tests/fuzz/cel.dict
	mkdir -p "$out/corpus/$h"
	if [ -d "tests/fuzz/regressions/$h" ] && ! "$bin" tests/fuzz/regressions/$h/* >"$out/$h.regressions.log" 2>&1; then
		echo "fuzz-$h: a regression input fails again:"
		tail -n 30 "$out/$h.regressions.log"
		crashed="$crashed $h"
		continue
	fi
	"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -dict="$dict" \
		-artifact_prefix="$out/crashes/$h-" -print_final_stats=1 \
		"$out/corpus/$h" "$out/seeds/$h" >"$out/$h.log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$h.log" | tail -n 1)
	speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$out/$h.log" | tail -n 1)
	cov=$(grep -o 'cov: [0-9]*' "$out/$h.log" | tail -n 1)
	total=$((total + ${runs:-0}))
	if [ $rc -ne 0 ]; then
		crashed="$crashed $h"
		echo "fuzz-$h: CRASHED after ${runs:-?} executions (exit $rc); input in $out/crashes/"
		grep -E 'ERROR|SUMMARY|runtime error|==[0-9]+==' "$out/$h.log" | head -n 10
	else
		echo "fuzz-$h: ${runs:-0} executions, ${speed:-0} exec/s, ${cov:-cov: ?} edges"
	fi
done
if [ -n "$crashed" ]; then
	echo "fuzz: $total executions, CRASHED (harness$crashed)"
	exit 1
fi
echo "fuzz: $total executions, no crash"
