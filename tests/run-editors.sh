#!/bin/sh
# The editor integrations of docs/editors/, fed real schedlint output (stdout and stderr, as a
# :make or a task sees them) from fixtures with errors, warnings, notes, input errors and a
# message without a location. Every diagnostic line is one entry, with the file, line, column
# and type (E error, W warning, N note) that the line names:
#   Vim    docs/editors/vim/compiler/schedlint.vim through `:compiler schedlint` and :cgetfile in
#          `vim -es -u NONE`, the quickfix list read back (skipped without a vim with +quickfix);
#   VS Code  the problem matcher of docs/editors/vscode/tasks.json, its regexp run by node the
#          way VS Code runs it, severity mapped as VS Code maps it (skipped without node);
#   Emacs  docs/editors/emacs/schedlint.el in compilation-mode, alone in
#          compilation-error-regexp-alist (skipped without emacs); and the language server in
#          Eglot, set up by docs/editors/emacs/schedlint-eglot.el (tests/lsp-emacs.el: skipped
#          without emacs, or without Eglot and yaml-mode, which Emacs 28 takes from packages).
# Usage: run-editors.sh SCHEDLINT    Last line: editors: N passed, M failed, S skipped
set -u
[ $# -eq 1 ] && [ -x "$1" ] || { echo "usage: $0 SCHEDLINT" >&2; exit 2; }
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tests/lib.sh"
editors=$root/docs/editors

# The cases: a fixture directory, the arguments. Their output is the editors' input.
i=0
while IFS='|' read -r dir args; do
	i=$((i + 1))
	echo "$root/fixtures/$dir" >"$tmp/dir.$i"
	(cd "$root/fixtures/$dir" && NO_COLOR=1 "$bin" $args) >"$tmp/out.$i" 2>&1
done <<'EOF'
rollout-deadlock/seed-gpu-tracker|--nodes nodes.yaml manifest.yaml
config/rule-level-warning|--nodes nodes.yaml manifest.yaml
unused-suppression/doc-example|--fail-on note --nodes nodes.yaml manifest.yaml
repository/ordinary-repo|. .github/workflows/deploy.yml
input-errors/bad-gpu-quantity|manifest.yaml
rollout-deadlock/seed-gpu-tracker|--disable no-such-rule manifest.yaml
EOF
n=$i

# What each output line names, read independently of the editors: file|line|col|type, a
# message without a location as |0|0|E; a leading ./ dropped, as editors show the file.
for i in $(seq 1 $n); do
	awk '
	match($0, /:[0-9]+:[0-9]+: (error|warning|note): /) {
		f = substr($0, 1, RSTART - 1)
		sub(/^\.\//, "", f)
		split(substr($0, RSTART + 1, RLENGTH - 1), p, ":")
		print f "|" p[1] "|" p[2] "|" toupper(substr(p[3], 2, 1))
		next
	}
	/^schedlint: error: / { print "|0|0|E" }' "$tmp/out.$i" >"$tmp/exp.$i"
	grep -v '^|0|0|' "$tmp/exp.$i" >"$tmp/exp-loc.$i" # VS Code and Emacs take lines with a location
done
cat "$tmp"/exp.* >"$tmp/all"
for t in E W N; do
	grep -q "|$t\$" "$tmp/all" && ok || bad "the cases print no diagnostic of type $t"
done

compare_doc() { # editor, what, from the file, from the README
	diff -u "$3" "$4" >"$tmp/diff"
	[ -s "$3" ] && [ ! -s "$tmp/diff" ] && ok || bad "$1: $2 is not the one of its file" "$tmp/diff"
}
compare() { # editor, case, expected, got
	diff -u "$3" "$4" >"$tmp/diff" && ok ||
		bad "$1: $(sed "s|^$root/||" "$tmp/dir.$2") (case $2): the entries differ from the output's lines" "$tmp/diff"
}

if command -v vim >/dev/null 2>&1 && vim --version 2>/dev/null | grep -q '+quickfix'; then
	for i in $(seq 1 $n); do
		(cd "$(cat "$tmp/dir.$i")" && vim -es -u NONE -N -i NONE \
			-c "set rtp^=$editors/vim" -c 'compiler schedlint' -c "cgetfile $tmp/out.$i" \
			-c "let qf = map(getqflist(), {_, e -> (e.bufnr ? fnamemodify(bufname(e.bufnr), ':.') : '') . '|' . e.lnum . '|' . e.col . '|' . toupper(e.type) . (e.valid ? '' : '|invalid')})" \
			-c "call writefile(qf, '$tmp/vim.$i')" \
			-c 'qa!') </dev/null >"$tmp/vim.log" 2>&1
		[ -f "$tmp/vim.$i" ] || { cat "$tmp/vim.log"; : >"$tmp/vim.$i"; }
		compare vim "$i" "$tmp/exp.$i" "$tmp/vim.$i"
	done
	# docs/editors/README.md's errorformat is the compiler file's
	vim -es -u NONE -N -i NONE -c "set rtp^=$editors/vim" -c 'compiler schedlint' \
		-c "call writefile([&l:errorformat], '$tmp/efm')" -c 'qa!' </dev/null >/dev/null 2>&1
	sed -n 's/^set errorformat=//p' "$editors/README.md" | sed 's/\\ / /g' >"$tmp/efm-doc"
	compare_doc vim "the errorformat of README.md" "$tmp/efm" "$tmp/efm-doc"
else
	skip "vim: the quickfix list of $n cases and README's errorformat" "no vim with +quickfix" $((n + 1))
fi

if command -v node >/dev/null 2>&1; then
	for i in $(seq 1 $n); do
		node -e '
		const fs = require("fs");
		const t = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
		const m = t.tasks.find(x => x.label === "schedlint").problemMatcher;
		const p = m.pattern, re = new RegExp(p.regexp);
		// VS Code: error, warning and info by name; note is info too
		const sev = { error: "E", warning: "W", info: "N", note: "N" };
		for (const line of fs.readFileSync(process.argv[2], "utf8").split("\n")) {
			const g = re.exec(line);
			if (!g) continue;
			console.log([g[p.file].replace(/^\.\//, ""), g[p.line], g[p.column],
				sev[g[p.severity].toLowerCase()] || "?"].join("|"));
		}' "$editors/vscode/tasks.json" "$tmp/out.$i" >"$tmp/vscode.$i" 2>&1
		compare vscode "$i" "$tmp/exp-loc.$i" "$tmp/vscode.$i"
	done
	# docs/editors/README.md's matcher is tasks.json's
	node -e '
	const fs = require("fs");
	const t = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
	const doc = fs.readFileSync(process.argv[2], "utf8").split("The matcher alone:")[1];
	const block = doc.slice(doc.indexOf("```json") + 7, doc.indexOf("```", doc.indexOf("```json") + 7));
	console.log(JSON.stringify(t.tasks.find(x => x.label === "schedlint").problemMatcher));
	console.error(JSON.stringify(JSON.parse(block)));' "$editors/vscode/tasks.json" "$editors/README.md" \
		>"$tmp/pm" 2>"$tmp/pm-doc"
	compare_doc vscode "the problem matcher of README.md" "$tmp/pm" "$tmp/pm-doc"
else
	skip "vscode: the problem matcher on $n cases and README's matcher" "no node" $((n + 1))
fi

if command -v emacs >/dev/null 2>&1; then
	for i in $(seq 1 $n); do
		(cd "$(cat "$tmp/dir.$i")" && emacs --batch -Q -l "$editors/emacs/schedlint.el" --eval "
		(with-temp-buffer
		  (insert-file-contents \"$tmp/out.$i\")
		  (let ((compilation-error-regexp-alist '(schedlint)))
		    (compilation-mode)
		    (compilation--ensure-parse (point-max))
		    (goto-char (point-min))
		    (while (not (eobp))
		      (let ((msg (get-text-property (point) 'compilation-message)))
		        (when msg
		          (let ((loc (compilation--message->loc msg)))
		            (princ (format \"%s|%d|%d|%s\n\"
		                           (replace-regexp-in-string \"^[.]/\" \"\" (caar (compilation--loc->file-struct loc)))
		                           (compilation--loc->line loc) (compilation--loc->col loc)
		                           (nth (compilation--message->type msg) '(\"N\" \"W\" \"E\")))))))
		      (forward-line 1))))") >"$tmp/emacs.$i" 2>"$tmp/emacs.log" || cat "$tmp/emacs.log"
		compare emacs "$i" "$tmp/exp-loc.$i" "$tmp/emacs.$i"
	done
else
	skip "emacs: compilation-mode on $n cases" "no emacs" $n
fi

# Eglot (tests/lsp-emacs.el): docs/editors/emacs/schedlint-eglot.el loaded in `emacs --batch -Q`
# with the packages installed for the system (Emacs 28: Debian's elpa-eglot and elpa-yaml-mode)
# activated, the seed's manifest opened in a repository whose .schedlint.yaml names its nodes,
# Eglot started against `schedlint lsp`: the rollout-deadlock must reach Flymake. Twice: with
# yaml-mode, and as on a machine without it (the snippet's own mode, not fundamental-mode).
emacs_eglot() { # name, NO_YAML_MODE, the major mode expected
	ws=$tmp/eglot-ws
	rm -rf "$ws" "$tmp"/eglot-asan.*
	mkdir -p "$ws" "$tmp/eglot-bin" "$tmp/eglot-home"
	cp "$root/fixtures/rollout-deadlock/seed-gpu-tracker/manifest.yaml" \
		"$root/fixtures/rollout-deadlock/seed-gpu-tracker/nodes.yaml" "$ws/"
	printf 'nodes: [nodes.yaml]\n' >"$ws/.schedlint.yaml"
	git -C "$ws" init -q 2>/dev/null || mkdir "$ws/.git" # Emacs's project: the VCS root
	ln -sf "$bin" "$tmp/eglot-bin/schedlint"
	(cd "$ws" && PATH=$tmp/eglot-bin:$PATH HOME=$tmp/eglot-home NO_YAML_MODE=$2 WS=$ws \
		SNIPPET=$editors/emacs/schedlint-eglot.el ASAN_OPTIONS="${ASAN_OPTIONS:-}:log_path=$tmp/eglot-asan" \
		limited 60 emacs --batch -Q -l "$root/tests/lsp-emacs.el") >"$tmp/eglot" 2>&1
	cat "$tmp"/eglot-asan.* >>"$tmp/eglot" 2>/dev/null
	grep -q "^emacs: emacs .*, major mode $3\$" "$tmp/eglot" && ok || bad "emacs ($1): the manifest is not in $3" "$tmp/eglot"
	grep -q '^emacs: 1 diagnostics$' "$tmp/eglot" &&
		grep -q '^emacs: 11:1-11:5 eglot-error schedlint \[rollout-deadlock\]: rollout of Deployment vision/vision-object-tracker can never finish' \
			"$tmp/eglot" && ok || bad "emacs ($1): Flymake did not get the rollout-deadlock at manifest.yaml:11:1" "$tmp/eglot"
	grep -q '^emacs: server stopped: t$' "$tmp/eglot" && ok || bad "emacs ($1): the server did not stop" "$tmp/eglot"
	grep -q -e Sanitizer -e 'runtime error' "$tmp/eglot" && bad "emacs ($1): a sanitizer report" "$tmp/eglot" || ok
}
if ! command -v emacs >/dev/null 2>&1; then
	skip "emacs: Eglot against schedlint lsp, with and without yaml-mode" "no emacs" 8
elif ! PROBE=1 emacs --batch -Q -l "$root/tests/lsp-emacs.el" >"$tmp/eglot" 2>&1 </dev/null; then
	skip "emacs: Eglot against schedlint lsp, with and without yaml-mode" \
		"$(sed -n 's/^emacs: //p' "$tmp/eglot" | head -n 1) (Emacs 28: Debian's elpa-eglot and elpa-yaml-mode)" 8
else
	emacs_eglot yaml-mode '' yaml-mode
	emacs_eglot "no YAML mode" 1 schedlint-yaml-mode
fi
# The VS Code extension (editors/vscode/): extension.js with stand-ins for VS Code and its client
# library (tests/vscode-extension.js), its options given to the real server; then the package,
# built with @vscode/vsce from package-lock.json in build/vscode (installed again only when the
# lock changes), when npm is there and its registry answers.
ext=$root/editors/vscode
if command -v node >/dev/null 2>&1; then
	node "$root/tests/vscode-extension.js" "$ext" "$bin" "$root/fixtures/rollout-deadlock/seed-gpu-tracker" \
		>"$tmp/vsx" 2>&1
	for want in 'activation events onLanguage:yaml onLanguage:json workspaceContains:.schedlint.yaml workspaceContains:.schedlint.yml' \
		'defaults: schedlint lsp; languages yaml json; initializationOptions {}; started true' \
		'defaults: the server answers with capabilities; exit status 0' \
		"inventory: $bin lsp; languages yaml json; initializationOptions {\"nodes\":[\"nodes.yaml\"]}; started true" \
		'inventory: the server answers with capabilities; exit status 0' \
		'nodes 5: the server answers an error' \
		'settings changed: old stopped true, new started true with {"nodes":["cluster/nodes.yaml"]}' \
		'settings read but not declared in package.json: none' \
		'settings declared but never read: none'; do
		grep -q -F -x "vscode: $want" "$tmp/vsx" && ok || bad "vscode extension: not '$want'" "$tmp/vsx"
	done
else
	skip "vscode extension: extension.js against the server" "no node" 9
fi
vsx_build() {
	b=$root/build/vscode
	if ! cmp -s "$ext/package-lock.json" "$b/package-lock.json" || [ ! -d "$b/node_modules" ]; then
		rm -rf "$b"
		mkdir -p "$b"
		cp "$ext/package.json" "$ext/package-lock.json" "$b/"
		echo "progress: editors: npm ci for the VS Code extension under build/vscode"
		(cd "$b" && npm ci --no-audit --no-fund --loglevel=error) >"$tmp/npm.log" 2>&1 || return 1
	fi
	cp "$ext/package.json" "$ext/extension.js" "$ext/README.md" "$ext/.vscodeignore" "$b/"
	rm -f "$b"/*.vsix
	(cd "$b" && ./node_modules/.bin/vsce package --skip-license --out schedlint.vsix) >"$tmp/npm.log" 2>&1
}
if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
	skip "vscode extension: the package built with @vscode/vsce" "no npm" 2
elif ! npm ping >/dev/null 2>&1 && [ ! -d "$root/build/vscode/node_modules" ]; then
	skip "vscode extension: the package built with @vscode/vsce" "the npm registry does not answer" 2
elif vsx_build; then
	ok
	# a .vsix is a zip: its entries, read with node's zlib-free reader of the central directory
	node -e '
	const b = require("fs").readFileSync(process.argv[1]);
	let e = b.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
	let n = b.readUInt16LE(e + 10), off = b.readUInt32LE(e + 16);
	for (let i = 0; i < n; i++) {
		const len = b.readUInt16LE(off + 28), extra = b.readUInt16LE(off + 30), com = b.readUInt16LE(off + 32);
		console.log(b.slice(off + 46, off + 46 + len).toString());
		off += 46 + len + extra + com;
	}' "$root/build/vscode/schedlint.vsix" >"$tmp/vsix" 2>&1
	for f in extension/extension.js extension/package.json extension/README.md \
		extension/node_modules/vscode-languageclient/node.js; do
		grep -q -x -F "$f" "$tmp/vsix" || echo "missing $f" >>"$tmp/vsix-missing"
	done
	[ ! -s "$tmp/vsix-missing" ] && ok || bad "vscode extension: the package lacks files" "$tmp/vsix-missing"
else
	bad "vscode extension: the package does not build" "$tmp/npm.log"
	bad "vscode extension: the package's files (not built)"
fi

# docs/editors/README.md's Emacs entry (under Compiler-style output: the language server's Eglot
# setup comes first, tests/run-lsp.sh checks that one) is schedlint.el's, line for line
awk '/^## Compiler-style output/ { c = 1 } c && /^```elisp/ { b = 1; next } b && /^```/ { exit } b && NF' \
	"$editors/README.md" >"$tmp/el-doc"
if [ ! -s "$tmp/el-doc" ] || grep -v -x -F -f "$editors/emacs/schedlint.el" "$tmp/el-doc" >"$tmp/el-diff"; then
	bad "emacs: README.md's entry is missing or has lines schedlint.el does not" "$tmp/el-diff"
else ok; fi
finish editors
