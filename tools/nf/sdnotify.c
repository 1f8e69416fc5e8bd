// SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception
/* sd_notify(3) for the NFs: one datagram to $NOTIFY_SOCKET. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "sdnotify.h"

int sd_notify_state(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	socklen_t len;
	ssize_t sent;
	size_t plen;
	int fd, err;

	if (!path || !*path)
		return 0;
	plen = strlen(path);
	/* An absolute path, or "@name" for the abstract namespace. */
	if ((path[0] != '/' && path[0] != '@') || plen >= sizeof(sun.sun_path))
		return -EINVAL;
	memcpy(sun.sun_path, path, plen);
	if (path[0] == '@')
		sun.sun_path[0] = '\0';
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + plen);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	sent = sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sun, len);
	err = sent < 0 ? -errno : 1;
	close(fd);
	return err;
}
