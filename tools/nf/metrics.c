// SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception
/*
 * The NF's watcher thread: SIGUSR1 through a signalfd, and --metrics
 * scrapes, one connection at a time (read and answered HTTP/1.0 within a
 * second of its accept, then closed), so a stuck client holds up no packet.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <sys/un.h>
#include <unistd.h>

#include "conf.h"
#include "metrics.h"
#include "log.h"

#define METRICS_REQUEST_MAX 8192
#define METRICS_WAIT_MS 1000

static struct {
	const char *spec;
	int is_unix;
	struct sockaddr_un un;
	struct sockaddr_in in;
	int listen_fd, sig_fd, stop_pipe[2];
	pthread_t thread;
	int running;
	void (*usr1)(void *arg);
	void (*prom)(FILE *f, void *arg);
	void *arg;
} metrics = { .listen_fd = -1, .sig_fd = -1, .stop_pipe = { -1, -1 } };

int nf_metrics_parse(const char *spec)
{
	const char *colon = strrchr(spec, ':');
	char addr[INET_ADDRSTRLEN];
	unsigned long port;

	metrics.spec = spec;
	if (strchr(spec, '/')) {
		if (strlen(spec) >= sizeof(metrics.un.sun_path)) {
			nf_err("--metrics %s: the path is too long", spec);
			return -1;
		}
		metrics.is_unix = 1;
		metrics.un.sun_family = AF_UNIX;
		strcpy(metrics.un.sun_path, spec);
		return 0;
	}
	/* PORT alone is loopback's: never another address unless it is named. */
	snprintf(addr, sizeof(addr), "%s", "127.0.0.1");
	if (colon && (size_t)(colon - spec) < sizeof(addr))
		snprintf(addr, sizeof(addr), "%.*s", (int)(colon - spec), spec);
	metrics.in.sin_family = AF_INET;
	if ((colon && (size_t)(colon - spec) >= sizeof(addr)) ||
	    conf_uint(colon ? colon + 1 : spec, 1, 65535, false, &port) ||
	    inet_pton(AF_INET, addr, &metrics.in.sin_addr) != 1) {
		nf_err("bad --metrics '%s' (a socket PATH, PORT, or ADDR:PORT)", spec);
		return -1;
	}
	metrics.in.sin_port = htons((uint16_t)port);
	return 0;
}

static int metrics_listen(void)
{
	struct stat st;
	int fd, one = 1;

	fd = socket(metrics.is_unix ? AF_UNIX : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (metrics.is_unix) {
		/* A socket left by an NF that was killed (nobody answers): ours now. */
		if (!stat(metrics.un.sun_path, &st) && S_ISSOCK(st.st_mode) &&
		    connect(fd, (struct sockaddr *)&metrics.un, sizeof(metrics.un)) < 0 &&
		    errno == ECONNREFUSED)
			unlink(metrics.un.sun_path);
		close(fd);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0 || bind(fd, (struct sockaddr *)&metrics.un, sizeof(metrics.un)))
			goto err;
	} else {
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, (struct sockaddr *)&metrics.in, sizeof(metrics.in)))
			goto err;
	}
	if (listen(fd, 8))
		goto err;
	return fd;
err:
	if (fd >= 0)
		close(fd);
	return -1;
}

/* What is left of the request's second, in ms; 0 once it has passed. */
static int metrics_left_ms(const struct timespec *deadline)
{
	struct timespec now;
	long long ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (deadline->tv_sec - now.tv_sec) * 1000LL + (deadline->tv_nsec - now.tv_nsec) / 1000000;
	return ms > 0 ? (int)ms : 0;
}

/* Wait for fd to be ready for events until the deadline: 1 ready, 0 not. */
static int metrics_wait(int fd, short events, const struct timespec *deadline)
{
	struct pollfd p = { .fd = fd, .events = events };
	int left, r;

	do {
		left = metrics_left_ms(deadline);
		if (!left)
			return 0;
		r = poll(&p, 1, left);
	} while (r < 0 && errno == EINTR);
	return r > 0;
}

/*
 * Read the request, answer with the metrics, close: all within one
 * second from accept(), however the client trickles its bytes in or
 * reads ours out, so a slow client delays SIGUSR1 and the next scrape a
 * second at most.
 */
static void metrics_serve(int fd)
{
	char req[METRICS_REQUEST_MAX + 1], *body = NULL, *head = NULL;
	size_t got = 0, len = 0, off;
	struct timespec deadline;
	int head_len;
	ssize_t n;
	FILE *f;

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += METRICS_WAIT_MS / 1000;
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK))
		goto out;
	while (got < METRICS_REQUEST_MAX && metrics_wait(fd, POLLIN, &deadline)) {
		n = read(fd, req + got, METRICS_REQUEST_MAX - got);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
		req[got] = '\0';
		if (strstr(req, "\r\n\r\n") || strstr(req, "\n\n"))
			break;
	}
	f = open_memstream(&body, &len);
	if (!f)
		goto out;
	metrics.prom(f, metrics.arg);
	fclose(f);
	head_len = asprintf(&head, "HTTP/1.0 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\n"
			    "Content-Length: %zu\r\nConnection: close\r\n\r\n", len);
	if (head_len < 0) {
		head = NULL;
		goto out;
	}
	for (off = 0; off < (size_t)head_len + len;) {
		/* A client gone before its answer is no SIGPIPE for the NF. */
		if (off < (size_t)head_len)
			n = send(fd, head + off, (size_t)head_len - off, MSG_NOSIGNAL);
		else
			n = send(fd, body + off - head_len, len - (off - head_len), MSG_NOSIGNAL);
		if (n > 0)
			off += (size_t)n;
		else if ((n < 0 && errno != EAGAIN && errno != EINTR) ||
			 !metrics_wait(fd, POLLOUT, &deadline))
			break;
	}
out:
	free(head);
	free(body);
	close(fd);
}

static void *metrics_thread(void *arg)
{
	/* A negative fd is not polled: no signalfd offline, no socket without --metrics. */
	struct pollfd p[3] = {
		{ .fd = metrics.stop_pipe[0], .events = POLLIN },
		{ .fd = metrics.sig_fd, .events = POLLIN },
		{ .fd = metrics.listen_fd, .events = POLLIN },
	};
	struct signalfd_siginfo si;
	int fd;

	(void)arg;
	for (;;) {
		if (poll(p, 3, -1) < 0 && errno != EINTR)
			break;
		if (p[0].revents)
			break;
		if ((p[1].revents & POLLIN) && read(metrics.sig_fd, &si, sizeof(si)) == sizeof(si))
			metrics.usr1(metrics.arg);
		if (metrics.listen_fd >= 0 && (p[2].revents & POLLIN)) {
			fd = accept4(metrics.listen_fd, NULL, NULL, SOCK_CLOEXEC);
			if (fd >= 0)
				metrics_serve(fd);
		}
	}
	return NULL;
}

int nf_metrics_start(void (*usr1)(void *arg), void (*prom)(FILE *f, void *arg), void *arg)
{
	sigset_t set, all, old;
	int err;

	metrics.usr1 = usr1;
	metrics.prom = prom;
	metrics.arg = arg;
	if (usr1) {
		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		/* Blocked in every thread started after this, taken from the signalfd. */
		pthread_sigmask(SIG_BLOCK, &set, NULL);
		metrics.sig_fd = signalfd(-1, &set, SFD_CLOEXEC);
		if (metrics.sig_fd < 0) {
			nf_err("cannot watch for SIGUSR1: %s", strerror(errno));
			goto err;
		}
	}
	if (pipe2(metrics.stop_pipe, O_CLOEXEC)) {
		nf_err("cannot start the metrics thread: %s", strerror(errno));
		goto err;
	}
	/* Nothing to watch: no thread. */
	if (!usr1 && !metrics.spec)
		return 0;
	if (metrics.spec) {
		metrics.listen_fd = metrics_listen();
		if (metrics.listen_fd < 0) {
			nf_err("--metrics %s: %s", metrics.spec, strerror(errno));
			goto err;
		}
	}
	/*
	 * The watcher takes no signal but through its signalfd: ns_run()
	 * waits for SIGINT/SIGTERM/SIGHUP in the calling thread, and a
	 * process signal may go to any thread that has it unblocked.
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&metrics.thread, NULL, metrics_thread, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		nf_err("cannot start the metrics thread");
		goto err;
	}
	metrics.running = 1;
	return 0;
err:
	nf_metrics_stop();
	return -1;
}

void nf_metrics_stop(void)
{
	if (metrics.running) {
		if (write(metrics.stop_pipe[1], "x", 1) != 1)
			pthread_cancel(metrics.thread);
		pthread_join(metrics.thread, NULL);
		metrics.running = 0;
	}
	if (metrics.listen_fd >= 0) {
		close(metrics.listen_fd);
		if (metrics.is_unix)
			unlink(metrics.un.sun_path);
	}
	if (metrics.sig_fd >= 0)
		close(metrics.sig_fd);
	if (metrics.stop_pipe[0] >= 0) {
		close(metrics.stop_pipe[0]);
		close(metrics.stop_pipe[1]);
	}
	metrics.listen_fd = metrics.sig_fd = metrics.stop_pipe[0] = metrics.stop_pipe[1] = -1;
}
