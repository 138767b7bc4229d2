/* lspclient_docs.c — the scripted client's scenarios about documents: diagnostics against the
 * command line's (compare), the seed's quick fix applied (seed), a config with an error
 * (config-error), and files changed on disk read again (refresh). */
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lspclient.h"

/* What `schedlint --format json` says of file, run in ws. */
static cJSON *cli_json(const char *ws, const char *file, const char *nodes)
{
	char cmd[4096];
	snprintf(cmd, sizeof cmd, "cd '%s' && '%s' --format json %s%s%s '%s' 2>/dev/null", ws, bin,
		 nodes ? "--nodes '" : "", nodes ? nodes : "", nodes ? "'" : "", file);
	FILE *p = popen(cmd, "r");
	if (!p)
		die("popen");
	size_t cap = 1 << 16, n = 0, got;
	char *b = malloc(cap);
	while ((got = fread(b + n, 1, cap - n - 1, p)) > 0)
		if ((n += got) + 1 == cap)
			b = realloc(b, cap *= 2);
	b[n] = 0;
	pclose(p);
	cJSON *j = cJSON_Parse(b);
	free(b);
	if (!j)
		die("schedlint --format json: not JSON");
	return j;
}

static int severity_of(const char *level)
{
	return !strcmp(level, "error") ? 1 : !strcmp(level, "warning") ? 2 : 3;
}

/* One entry of the command line's report among the diagnostics: same start, end, severity and
 * code, the positions turned from code points into UTF-16 units on the text's own lines. The
 * report's notices (about the input, not errors) do not say whether they are warnings or notes. */
static bool found_in(const cJSON *diags, const cJSON *e, const char *text, bool notice)
{
	const cJSON *rule = cJSON_GetObjectItem(e, "rule"), *level = cJSON_GetObjectItem(e, "level");
	int line = cJSON_GetObjectItem(e, "line")->valueint - 1, col = cJSON_GetObjectItem(e, "column")->valueint - 1;
	int eline = cJSON_GetObjectItem(e, "endLine")->valueint - 1,
	    ecol = cJSON_GetObjectItem(e, "endColumn")->valueint - 1;
	int sev = level ? severity_of(level->valuestring) : notice ? 2 : 1;
	const cJSON *d;
	cJSON_ArrayForEach(d, diags)
	{
		const cJSON *r = cJSON_GetObjectItem(d, "range"), *code = cJSON_GetObjectItem(d, "code");
		bool same_code = rule ? cJSON_IsString(code) && !strcmp(code->valuestring, rule->valuestring) : !code;
		if (same_code && num(r, "start", "line") == line &&
		    num(r, "start", "character") == units_of(text, line, col) && num(r, "end", "line") == eline &&
		    num(r, "end", "character") == units_of(text, eline, ecol) &&
		    (cJSON_GetObjectItem(d, "severity")->valueint == sev ||
		     (notice && cJSON_GetObjectItem(d, "severity")->valueint == 3)))
			return true;
	}
	return false;
}

int compare(const char *ws, const char *file, const char *nodes)
{
	char *path = join(ws, file), *uri = file_uri(path);
	char *text = read_file(path, NULL);
	if (!text)
		die("read the file");
	cJSON *cli = cli_json(ws, file, nodes);
	struct server s = start(NULL);
	initialize(&s, ws, nodes, false);
	open_doc(&s, uri, text, 1);
	cJSON *diags = strcmp(file, "-") ? diagnostics(&s, uri, 1) : NULL;
	int want = 0, have = cJSON_GetArraySize(diags);
	const char *groups[] = {"findings", "errors", "notices"};
	for (int g = 0; g < 3; g++) {
		const cJSON *e;
		cJSON_ArrayForEach(e, cJSON_GetObjectItem(cli, groups[g]))
		{
			const cJSON *f = cJSON_GetObjectItem(e, "file"), *sup = cJSON_GetObjectItem(e, "suppressed");
			/* A notice about the run as a whole (rules-not-run, no-manifest) has no file:
			 * it is no diagnostic of a document. */
			if (!cJSON_IsString(f) || strcmp(f->valuestring, file) || cJSON_IsTrue(sup))
				continue;
			want++;
			check(found_in(diags, e, text, g == 2), "%s: %s at %d:%d, as the command line says", file,
			      cJSON_GetObjectItem(e, "rule") ? cJSON_GetObjectItem(e, "rule")->valuestring
			      : g == 1                       ? "input error"
							     : "note on the input",
			      cJSON_GetObjectItem(e, "line")->valueint, cJSON_GetObjectItem(e, "column")->valueint);
		}
	}
	check(want == have, "%s: %d diagnostics, as the command line reports %d", file, have, want);
	cJSON *r = request(&s, "shutdown", NULL);
	cJSON_Delete(r);
	notify(&s, "exit", NULL);
	check(wait_exit(&s, TIMEOUT_MS) == 0, "%s: exit status 0 after shutdown", file);
	cJSON_Delete(diags);
	cJSON_Delete(cli);
	free(text);
	free(uri);
	free(path);
	return 0;
}

/* The rollout-deadlock of the seed: at the range the command line gives, with its rule's page
 * and what the proof used; its preferred quick fix is the command line's --fix; once applied,
 * the diagnostic goes. */
int seed(const char *ws, const char *fixed_path)
{
	char *path = join(ws, "manifest.yaml"), *uri = file_uri(path);
	char *nodes_path = join(ws, "nodes.yaml"), *nodes_uri = file_uri(nodes_path);
	char *text = read_file(path, NULL), *fixed = read_file(fixed_path, NULL);
	if (!text || !fixed)
		die("read the seed");
	struct server s = start(NULL);
	initialize(&s, ws, "nodes.yaml", true);
	open_doc(&s, uri, text, 1);
	cJSON *diags = diagnostics(&s, uri, 1);
	check(cJSON_GetArraySize(diags) == 1, "seed: one diagnostic (%d)", cJSON_GetArraySize(diags));
	cJSON *d = cJSON_GetArrayItem(diags, 0);
	const cJSON *code = cJSON_GetObjectItem(d, "code"), *r = cJSON_GetObjectItem(d, "range");
	const cJSON *href = cJSON_GetObjectItem(cJSON_GetObjectItem(d, "codeDescription"), "href");
	const cJSON *rel = cJSON_GetObjectItem(d, "relatedInformation"), *ri;
	check(cJSON_IsString(code) && !strcmp(code->valuestring, "rollout-deadlock"), "seed: code rollout-deadlock");
	check(cJSON_IsNumber(cJSON_GetObjectItem(d, "severity")) && cJSON_GetObjectItem(d, "severity")->valueint == 1,
	      "seed: severity Error");
	check(num(r, "start", "line") == 10 && num(r, "start", "character") == 0,
	      "seed: starts at 10:0 (manifest.yaml:11:1)");
	check(cJSON_IsString(href) && strstr(href->valuestring, "/docs/rules/rollout-deadlock.md"),
	      "seed: codeDescription.href is the rule's page");
	bool on_node = false;
	cJSON_ArrayForEach(ri, rel)
	{
		const cJSON *loc = cJSON_GetObjectItem(ri, "location");
		const cJSON *u = cJSON_GetObjectItem(loc, "uri");
		on_node |= cJSON_IsString(u) && !strcmp(u->valuestring, nodes_uri) &&
			   num(cJSON_GetObjectItem(loc, "range"), "start", "line") == 11;
	}
	check(on_node, "seed: related information at the node in nodes.yaml:12");
	cJSON *ca = code_actions(&s, uri, r, d);
	cJSON *actions = cJSON_GetObjectItem(ca, "result"), *a;
	check(cJSON_GetArraySize(actions) >= 2, "seed: a quick fix for each fix (%d)", cJSON_GetArraySize(actions));
	int preferred = 0, first_preferred = 0, quickfix = 0;
	cJSON_ArrayForEach(a, actions)
	{
		preferred += cJSON_IsTrue(cJSON_GetObjectItem(a, "isPreferred"));
		quickfix += !strcmp(cJSON_GetObjectItem(a, "kind")->valuestring, "quickfix");
	}
	first_preferred = cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(actions, 0), "isPreferred"));
	check(preferred == 1 && first_preferred, "seed: the first fix, and only it, is preferred");
	check(quickfix == cJSON_GetArraySize(actions), "seed: every action is a quickfix");
	const cJSON *edits = cJSON_GetObjectItem(
	    cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(actions, 0), "edit"), "changes"), uri);
	check(cJSON_GetArraySize(edits) > 0, "seed: the preferred fix edits the manifest");
	char *applied = apply_edits(text, edits);
	check(!strcmp(applied, fixed), "seed: the preferred fix gives what schedlint --fix writes");
	change_doc(&s, uri, applied, 2);
	cJSON *after = diagnostics(&s, uri, 2);
	check(after && cJSON_GetArraySize(after) == 0, "seed: fixed, the diagnostic goes (an empty list published)");
	cJSON *ca2 = code_actions(&s, uri, r, NULL);
	check(cJSON_GetArraySize(cJSON_GetObjectItem(ca2, "result")) == 0, "seed: fixed, no quick fix is offered");
	change_doc(&s, uri, text, 3);
	cJSON *again = diagnostics(&s, uri, 3);
	check(cJSON_GetArraySize(again) == 1, "seed: undone, it comes back");
	cJSON *rs = request(&s, "shutdown", NULL);
	check(rs && cJSON_IsNull(cJSON_GetObjectItem(rs, "result")), "seed: shutdown answers null");
	notify(&s, "exit", NULL);
	check(wait_exit(&s, TIMEOUT_MS) == 0, "seed: exit status 0 after shutdown");
	cJSON_Delete(rs);
	cJSON_Delete(again);
	cJSON_Delete(ca2);
	cJSON_Delete(after);
	free(applied);
	cJSON_Delete(ca);
	cJSON_Delete(diags);
	free(text);
	free(fixed);
	free(uri);
	free(path);
	free(nodes_uri);
	free(nodes_path);
	return 0;
}

/* A config with an error: the error is published at the config file, and nothing is linted. */
int config_error(const char *ws)
{
	char *path = join(ws, "manifest.yaml"), *uri = file_uri(path);
	char *cpath = join(ws, ".schedlint.yaml"), *curi = file_uri(cpath);
	char *text = read_file(path, NULL);
	struct server s = start(NULL);
	initialize(&s, ws, NULL, false);
	open_doc(&s, uri, text, 1);
	cJSON *diags = diagnostics(&s, curi, -1);
	check(cJSON_GetArraySize(diags) >= 1, "config-error: the error is published at .schedlint.yaml");
	const cJSON *d = cJSON_GetArrayItem(diags, 0);
	check(d && !cJSON_GetObjectItem(d, "code") && cJSON_GetObjectItem(d, "severity")->valueint == 1,
	      "config-error: as an error without a rule");
	cJSON *r = request(&s, "shutdown", NULL);
	check(r != NULL, "config-error: the server still serves");
	cJSON_Delete(r);
	notify(&s, "exit", NULL);
	check(wait_exit(&s, TIMEOUT_MS) == 0, "config-error: exit status 0");
	cJSON_Delete(diags);
	free(text);
	free(uri);
	free(path);
	free(curi);
	free(cpath);
	return 0;
}

static void write_file(const char *path, const char *text)
{
	usleep(20000); /* file times tick with the kernel's coarse clock: let the next tick come */
	FILE *f = fopen(path, "wb");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		die("write a file");
}

/* The workspace's files as they change on disk: the node inventory given two GPUs (the same
 * size: only the modification time tells), announced by workspace/didChangeWatchedFiles, ends
 * the deadlock; put back, unannounced, it is read again all the same at the next run (a save of
 * the manifest). */
int refresh(const char *ws)
{
	char *path = join(ws, "manifest.yaml"), *uri = file_uri(path), *text = read_file(path, NULL);
	char *npath = join(ws, "nodes.yaml"), *nuri = file_uri(npath), *nodes = read_file(npath, NULL);
	char *more = xstrdup(nodes), *at;
	for (int k = 0; k < 2 && (at = strstr(more, "nvidia.com/gpu: \"1\"")); k++)
		at[17] = '2';
	struct server s = start(NULL);
	initialize(&s, ws, "nodes.yaml", false);
	open_doc(&s, uri, text, 1);
	cJSON *d = diagnostics(&s, uri, 1);
	check(cJSON_GetArraySize(d) == 1, "refresh: the deadlock with one GPU");
	cJSON_Delete(d);
	write_file(npath, more);
	cJSON *p = cJSON_CreateObject(), *c = cJSON_CreateObject();
	cJSON_AddStringToObject(c, "uri", nuri);
	cJSON_AddNumberToObject(c, "type", 2);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(p, "changes"), c);
	notify(&s, "workspace/didChangeWatchedFiles", p);
	d = diagnostics(&s, uri, 1);
	check(d && cJSON_GetArraySize(d) == 0, "refresh: two GPUs on disk, announced: the deadlock goes");
	cJSON_Delete(d);
	write_file(npath, nodes);
	p = cJSON_CreateObject();
	cJSON_AddStringToObject(cJSON_AddObjectToObject(p, "textDocument"), "uri", uri);
	notify(&s, "textDocument/didSave", p);
	d = diagnostics(&s, uri, 1);
	check(cJSON_GetArraySize(d) == 1, "refresh: one GPU again, unannounced: read again at the next run");
	cJSON_Delete(d);
	cJSON_Delete(request(&s, "shutdown", NULL));
	notify(&s, "exit", NULL);
	check(wait_exit(&s, TIMEOUT_MS) == 0, "refresh: exit status 0");
	free(more);
	free(nodes);
	free(nuri);
	free(npath);
	free(text);
	free(uri);
	free(path);
	return 0;
}
