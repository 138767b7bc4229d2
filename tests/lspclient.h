/* lspclient.h — the scripted client's pieces, shared by its scenarios: the server it started,
 * the messages to and from it, and positions counted in UTF-16 units on its own (tests/lspclient.c). */
#ifndef LSPCLIENT_H
#define LSPCLIENT_H
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Generous: the server runs under the sanitizers. */
#define TIMEOUT_MS 30000

extern int passed, failed; /* the checks so far */
extern const char *bin;    /* the server's executable */

/* The server, and what it sent that was not taken yet. */
struct server {
	pid_t pid;
	int to, from;
	char *buf;
	size_t len, cap;
	int next_id;
};

/* One check: "PASS what" or "FAIL what", counted. */
void check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A failure that ends the scenario; the small helpers below die on running out of memory. */
void die(const char *what);
char *xstrdup(const char *s);
char *read_file(const char *path, size_t *len); /* NULL when it cannot be read */
char *file_uri(const char *path);
char *join(const char *dir, const char *name);

/* `bin lsp` started in cwd, on pipes. */
struct server start(const char *cwd);
/* Bytes as they are; a message framed (takes m); a notification; a request whose id is returned. */
void send_raw(struct server *s, const char *data, size_t n);
void send_msg(struct server *s, cJSON *m);
void notify(struct server *s, const char *method, cJSON *params);
int request_async(struct server *s, const char *method, cJSON *params);

/* The next message, or NULL when none came in time or the stream is broken. */
cJSON *recv_msg(struct server *s, int timeout_ms);

bool is_response(const cJSON *m, int id);
bool is_method(const cJSON *m, const char *method);

/* The response to id; *others counts the responses that came before it (none should). */
cJSON *response(struct server *s, int id, int *others);

/* A request and its response (NULL: none in time). */
cJSON *request(struct server *s, const char *method, cJSON *params);

/* The next response that answers no request of a number id (a framing error's, id null). */
cJSON *null_response(struct server *s);

int error_code(const cJSON *m); /* an error response's code, 0 for none */

/* The diagnostics published next for uri (with the version when version >= 0). */
cJSON *diagnostics(struct server *s, const char *uri, int version);

/* The exit status, or -1 when the server has not ended in time. */
int wait_exit(struct server *s, int timeout_ms);

/* initialize's params: root as the workspace folder, nodes (may be NULL) in initializationOptions. */
cJSON *init_params(const char *root, const char *nodes);

/* initialize and initialized; the server's capabilities checked once. */
void initialize(struct server *s, const char *root, const char *nodes, bool check_caps);

void open_doc(struct server *s, const char *uri, const char *text, int version);
void change_doc(struct server *s, const char *uri, const char *text, int version); /* full text */
cJSON *code_actions(struct server *s, const char *uri, const cJSON *range, const cJSON *diag);
/* o.a.b as an int (-1: missing). */
int num(const cJSON *o, const char *a, const char *b);

/* The byte offset of an LSP position (UTF-16 units) in text: this client's own reading. */
size_t offset_of(const char *text, int line, int character);

/* The UTF-16 units of the first cols code points of line (0-based) of text. */
int units_of(const char *text, int line, int cols);

/* The text edits of a WorkspaceEdit for uri applied to text, from the last to the first. */
char *apply_edits(const char *text, const cJSON *edits);

/* The scenarios (lspclient_docs.c, lspclient_protocol.c): 0, or the checks say what failed. */
int compare(const char *ws, const char *file, const char *nodes);
int seed(const char *ws, const char *fixed_path);
int config_error(const char *ws);
int refresh(const char *ws);
int protocol(const char *ws);
int edits(const char *ws, int n, long slack_kb);
int latency(const char *root, const char *doc, const char *nodes, int n);
int incremental(const char *ws, const char *ws2);

#endif
