/* rusage: run a command and print its exit status, the CPU time it used (user + system, in
 * milliseconds) and its peak resident memory in KiB ("EXIT CPU_MS KB"), for the tests that bound
 * hostile input in time and memory. CPU time, not wall time: a busy machine stretches the wall
 * clock of a run but hardly its CPU time, so a bound on it holds on a loaded CI runner too. Its
 * output goes to stdout; the command's own output to where it was sent.
 * Usage: rusage COMMAND [ARG...] */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static long ms_of(struct timeval t)
{
	return (long)t.tv_sec * 1000 + (long)t.tv_usec / 1000;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: rusage COMMAND [ARG...]\n");
		return 2;
	}
	pid_t pid = fork();
	if (pid < 0) {
		perror("rusage: fork");
		return 2;
	}
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	int status;
	struct rusage ru;
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("rusage: wait4");
		return 2;
	}
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	printf("%d %ld %ld\n", code, ms_of(ru.ru_utime) + ms_of(ru.ru_stime), ru.ru_maxrss);
	return 0;
}
