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
#          compilation-error-regexp-alist (skipped without emacs).
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
# docs/editors/README.md's Emacs entry (under Compiler-style output: the language server's Eglot
# setup comes first, tests/run-lsp.sh checks that one) is schedlint.el's, line for line
awk '/^## Compiler-style output/ { c = 1 } c && /^```elisp/ { b = 1; next } b && /^```/ { exit } b && NF' \
	"$editors/README.md" >"$tmp/el-doc"
if [ ! -s "$tmp/el-doc" ] || grep -v -x -F -f "$editors/emacs/schedlint.el" "$tmp/el-doc" >"$tmp/el-diff"; then
	bad "emacs: README.md's entry is missing or has lines schedlint.el does not" "$tmp/el-diff"
else ok; fi
finish editors
