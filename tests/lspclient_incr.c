/* lspclient_incr.c — the scripted client's scenario about changes linted incrementally
 * (incremental): the server keeps each unchanged file's parse between runs, and after every
 * change its diagnostics must be the ones a fresh server gives for the same texts, including a
 * finding of one document that another decides (a Deployment whose nodes file changes). Each run
 * logs how many of its files it took as parsed before: a change to one document parses that one. */
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lspclient.h"

/* s with every from replaced by to. */
static char *replace_all(const char *s, const char *from, const char *to)
{
	size_t nf = strlen(from), nt = strlen(to), n = 0;
	for (const char *p = s; (p = strstr(p, from)); p += nf)
		n++;
	char *out = malloc(strlen(s) + n * nt + 1), *o = out;
	if (!out)
		die("malloc");
	for (const char *p = s, *q; *p; p = q + nf) {
		q = strstr(p, from);
		if (!q) {
			strcpy(o, p);
			return out;
		}
		memcpy(o, p, (size_t)(q - p));
		o += q - p;
		memcpy(o, to, nt);
		o += nt;
	}
	*o = 0;
	return out;
}

/* One run's outcome: uri's diagnostics if the run published them (else *diags is left as it
 * was: the client has them already), and the counts of its log line. -1 when no run ended. */
static int run_ended(struct server *s, const char *uri, cJSON **diags, int *files, int *reused)
{
	cJSON *m;
	while ((m = recv_msg(s, TIMEOUT_MS))) {
		const cJSON *p = cJSON_GetObjectItem(m, "params");
		const cJSON *u = p ? cJSON_GetObjectItem(p, "uri") : NULL,
			    *msg = p ? cJSON_GetObjectItem(p, "message") : NULL;
		if (cJSON_IsString(u) && !strcmp(u->valuestring, uri)) {
			cJSON_Delete(*diags);
			*diags = cJSON_DetachItemFromObject(cJSON_GetObjectItem(m, "params"), "diagnostics");
		}
		bool done = cJSON_IsString(msg) &&
			    sscanf(msg->valuestring, "schedlint: linted %d files (%d of them", files, reused) == 2;
		cJSON_Delete(m);
		if (done)
			return 0;
	}
	return -1;
}

/* What a fresh server says of the manifest in ws2 (its files written as texts), with ws2 in its
 * URIs written as ws. */
static char *fresh(const char *ws, const char *ws2, const char *manifest, const char *nodes)
{
	char *mpath = join(ws2, "manifest.yaml"), *npath = join(ws2, "nodes.yaml");
	const char *paths[] = {mpath, npath}, *texts[] = {manifest, nodes};
	for (int i = 0; i < 2; i++) {
		FILE *f = fopen(paths[i], "w");
		if (!f || fputs(texts[i], f) < 0 || fclose(f))
			die(paths[i]);
	}
	char *uri = file_uri(mpath);
	struct server s = start(NULL);
	initialize(&s, ws2, npath, false);
	open_doc(&s, uri, manifest, 1);
	cJSON *d = cJSON_CreateArray();
	int files = 0, reused = 0;
	if (run_ended(&s, uri, &d, &files, &reused) < 0)
		die("fresh server: no run");
	cJSON_Delete(request(&s, "shutdown", NULL));
	notify(&s, "exit", NULL);
	wait_exit(&s, TIMEOUT_MS);
	char *json = cJSON_PrintUnformatted(d), *u2 = file_uri(ws2), *u1 = file_uri(ws);
	char *out = replace_all(json, u2, u1);
	cJSON_Delete(d);
	free(json), free(u1), free(u2), free(uri), free(mpath), free(npath);
	return out;
}

/* After one change: the diagnostics the same as a fresh server's, and reused files taken as
 * parsed before (-1: any number). */
static void step(struct server *s, const char *what, const char *uri, cJSON **diags, const char *ws, const char *ws2,
		 const char *manifest, const char *nodes, int reused_want)
{
	int files = 0, reused = 0;
	check(run_ended(s, uri, diags, &files, &reused) == 0, "incremental: %s: linted", what);
	char *got = cJSON_PrintUnformatted(*diags), *want = fresh(ws, ws2, manifest, nodes);
	check(!strcmp(got, want), "incremental: %s: the diagnostics a fresh server gives (%d)", what,
	      cJSON_GetArraySize(*diags));
	if (strcmp(got, want))
		printf("  got  %s\n  want %s\n", got, want);
	if (reused_want >= 0)
		check(reused == reused_want, "incremental: %s: %d of %d files taken as parsed before (got %d)", what,
		      reused_want, files, reused);
	free(got);
	free(want);
}

/* ws holds the seed's manifest.yaml and nodes.yaml (its only GPUs: one on the tracker node), ws2
 * an empty directory for the fresh servers' files. */
int incremental(const char *ws, const char *ws2)
{
	char *mpath = join(ws, "manifest.yaml"), *npath = join(ws, "nodes.yaml");
	char *m1 = read_file(mpath, NULL), *n1 = read_file(npath, NULL);
	if (!m1 || !n1)
		die("incremental: the workspace's files");
	char *n2 = replace_all(n1, "nvidia.com/gpu: \"1\"", "nvidia.com/gpu: \"2\"");
	char *m2 = replace_all(m1, "replicas: 1", "replicas: 2");
	char *muri = file_uri(mpath), *nuri = file_uri(npath);
	struct server s = start(NULL);
	initialize(&s, ws, npath, false);
	cJSON *d = cJSON_CreateArray();
	/* The files: the inventory, and the workspace's two manifests (the nodes file is one too). */
	open_doc(&s, muri, m1, 1);
	step(&s, "opened", muri, &d, ws, ws2, m1, n1, -1);
	check(cJSON_GetArraySize(d) == 1, "incremental: the seed's finding (%d)", cJSON_GetArraySize(d));
	open_doc(&s, nuri, n1, 1);
	step(&s, "the nodes file opened as it is on disk", muri, &d, ws, ws2, m1, n1, 3);
	change_doc(&s, nuri, n2, 2); /* a second GPU: the surge pod fits */
	step(&s, "the nodes file changed", muri, &d, ws, ws2, m1, n2, 1);
	change_doc(&s, muri, m2, 2); /* two replicas take both GPUs: no room to surge again */
	step(&s, "the manifest changed", muri, &d, ws, ws2, m2, n2, 2);
	change_doc(&s, nuri, n1, 3);
	step(&s, "the nodes file changed back", muri, &d, ws, ws2, m2, n1, 1);
	change_doc(&s, muri, m1, 3);
	step(&s, "the manifest changed back", muri, &d, ws, ws2, m1, n1, 2);
	cJSON_Delete(request(&s, "shutdown", NULL));
	notify(&s, "exit", NULL);
	check(wait_exit(&s, TIMEOUT_MS) == 0, "incremental: exit status 0");
	cJSON_Delete(d);
	free(m1), free(n1), free(m2), free(n2), free(muri), free(nuri), free(mpath), free(npath);
	return 0;
}
